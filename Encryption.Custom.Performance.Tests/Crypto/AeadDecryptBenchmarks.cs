using System.Security.Cryptography;
using BenchmarkDotNet.Attributes;
using Encryption.Custom.Crypto;
using Encryption.Custom.Crypto.Managed;
using Encryption.Custom.Native.OpenSsl;

namespace Encryption.Custom.Performance.Tests.Crypto;

/// <summary>One AEAD authentication and decryption per operation: naive framework one-shots vs both backends.</summary>
public class AeadDecryptBenchmarks
{
    private byte[] _cell = [];
    private byte[] _plainText = [];
    private NaiveAead? _naive;
    private AeadAes256CbcHmacSha256? _openSsl;
    private AeadAes256CbcHmacSha256? _managed;

    [Params(16, 256, 4096, 65536)]
    public int Size { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        var keys = new BenchmarkKeySource(RandomNumberGenerator.GetBytes(32));
        _naive = new NaiveAead(keys.EncryptionKey, keys.MacKey, Size);
        // Where libcrypto 3 is missing this benchmark fails visibly (PlatformNotSupportedException) rather than measure another backend.
        _openSsl = new AeadAes256CbcHmacSha256(keys, OpenSslAeadBackend.Instance);
        _managed = new AeadAes256CbcHmacSha256(keys, ManagedAeadBackend.Instance);
        _cell = _managed.Encrypt(RandomNumberGenerator.GetBytes(Size), AeadIvMode.Randomized);
        _plainText = new byte[AeadAes256CbcHmacSha256.GetMaxPlainTextLength(_cell.Length)];
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _naive?.Dispose();
        _openSsl?.Dispose();
        _managed?.Dispose();
    }

    [Benchmark(Baseline = true)]
    public int Naive() => _naive!.Decrypt(_cell, _plainText);

    [Benchmark]
    public int OpenSsl() => _openSsl!.Decrypt(_cell, _plainText);

    [Benchmark]
    public int Managed() => _managed!.Decrypt(_cell, _plainText);
}
