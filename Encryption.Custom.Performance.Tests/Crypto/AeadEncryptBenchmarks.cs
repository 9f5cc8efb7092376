using System.Security.Cryptography;
using BenchmarkDotNet.Attributes;
using Encryption.Custom.Crypto;
using Encryption.Custom.Crypto.Managed;
using Encryption.Custom.Native.OpenSsl;

namespace Encryption.Custom.Performance.Tests.Crypto;

/// <summary>One randomized-IV AEAD encryption per operation: naive framework one-shots vs both backends.</summary>
public class AeadEncryptBenchmarks
{
    private byte[] _plainText = [];
    private byte[] _cell = [];
    private NaiveAead? _naive;
    private AeadAes256CbcHmacSha256? _openSsl;
    private AeadAes256CbcHmacSha256? _managed;

    [Params(16, 256, 4096, 65536)]
    public int Size { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        var keys = new BenchmarkKeySource(RandomNumberGenerator.GetBytes(32));
        _plainText = RandomNumberGenerator.GetBytes(Size);
        _cell = new byte[AeadAes256CbcHmacSha256.GetCipherTextLength(Size)];
        _naive = new NaiveAead(keys.EncryptionKey, keys.MacKey, Size);
        // Where libcrypto 3 is missing this benchmark fails visibly (PlatformNotSupportedException) rather than measure another backend.
        _openSsl = new AeadAes256CbcHmacSha256(keys, OpenSslAeadBackend.Instance);
        _managed = new AeadAes256CbcHmacSha256(keys, ManagedAeadBackend.Instance);
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _naive?.Dispose();
        _openSsl?.Dispose();
        _managed?.Dispose();
    }

    [Benchmark(Baseline = true)]
    public int Naive() => _naive!.Encrypt(_plainText, _cell);

    [Benchmark]
    public int OpenSsl() => _openSsl!.Encrypt(_plainText, _cell, AeadIvMode.Randomized);

    [Benchmark]
    public int Managed() => _managed!.Encrypt(_plainText, _cell, AeadIvMode.Randomized);
}
