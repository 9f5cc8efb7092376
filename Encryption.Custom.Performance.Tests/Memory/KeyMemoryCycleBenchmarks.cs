using System.Security.Cryptography;
using BenchmarkDotNet.Attributes;
using Encryption.Custom.Crypto;
using Encryption.Custom.Native.Memory;

namespace Encryption.Custom.Performance.Tests.Memory;

/// <summary>
/// One protect + unprotect cycle of a 256-byte secret. Ours: mask it into a protected slot, then unmask it into a
/// stack span and wipe that span. Baseline: keep it encrypted at rest in managed
/// memory with AES-256-CBC + HMAC-SHA256 through the framework one-shots (fresh random IV per protect, tag checked
/// in fixed time before decrypting). Target: the cycle ≤ 2 µs.
/// </summary>
public class KeyMemoryCycleBenchmarks
{
    private const int SecretLength = 256;
    private const int IvLength = 16;
    private const int TagLength = 32;

    // The PKCS#7 padded ciphertext of 256 bytes is one block longer.
    private const int CipherLength = SecretLength + 16;

    private readonly byte[] _secret = RandomNumberGenerator.GetBytes(SecretLength);
    private readonly byte[] _macKey = RandomNumberGenerator.GetBytes(32);
    private readonly byte[] _sealed = new byte[IvLength + CipherLength];
    private readonly byte[] _tag = new byte[TagLength];
    private ProtectedMemoryPool _pool = null!;
    private SecretSlot _slot;
    private ProtectedKeyMaterial _keyMaterial = null!;
    private Aes _aes = null!;

    [GlobalSetup]
    public void Setup()
    {
        _pool = new ProtectedMemoryPool();
        _slot = _pool.Allocate(SecretLength);
        _keyMaterial = ProtectedKeyMaterial.Create(RandomNumberGenerator.GetBytes(32), RandomNumberGenerator.GetBytes(96), _pool);
        _aes = Aes.Create();
        _aes.Key = RandomNumberGenerator.GetBytes(32);
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _keyMaterial.Dispose();
        _pool.Free(_slot);
        _pool.Dispose();
        _aes.Dispose();
    }

    [Benchmark(Baseline = true)]
    public int AesCbcHmacAtRest()
    {
        // Protect: IV ‖ AES-CBC(secret), then HMAC over both.
        Span<byte> iv = _sealed.AsSpan(0, IvLength);
        RandomNumberGenerator.Fill(iv);
        _aes.EncryptCbc(_secret, iv, _sealed.AsSpan(IvLength), PaddingMode.PKCS7);
        HMACSHA256.HashData(_macKey, _sealed, _tag);

        // Unprotect: check the tag, decrypt into a stack span, use it, wipe it.
        Span<byte> expectedTag = stackalloc byte[TagLength];
        HMACSHA256.HashData(_macKey, _sealed, expectedTag);
        if (!CryptographicOperations.FixedTimeEquals(expectedTag, _tag))
        {
            throw new CryptographicException("Tag mismatch.");
        }

        Span<byte> plain = stackalloc byte[CipherLength];
        int written = _aes.DecryptCbc(_sealed.AsSpan(IvLength), _sealed.AsSpan(0, IvLength), plain, PaddingMode.PKCS7);
        int result = Consume(plain[..written]);
        CryptographicOperations.ZeroMemory(plain);
        return result;
    }

    [Benchmark]
    public int ProtectedSlotStoreAndReveal()
    {
        _slot.Store(_secret);
        return RevealAndConsume(_slot);
    }

    [Benchmark]
    public int ProtectedSlotAllocateStoreRevealFree()
    {
        SecretSlot slot = _pool.Allocate(SecretLength);
        slot.Store(_secret);
        int result = RevealAndConsume(slot);
        _pool.Free(slot);
        return result;
    }

    private static int RevealAndConsume(SecretSlot slot)
    {
        Span<byte> secret = stackalloc byte[SecretLength];
        slot.Reveal(0, secret);
        int result = Consume(secret);
        CryptographicOperations.ZeroMemory(secret);
        return result;
    }

    [Benchmark]
    public int ProtectedKeyMaterialUseSubKey()
    {
        int result = 0;
        _keyMaterial.UseSubKey(AeadSubKey.Mac, static (ReadOnlySpan<byte> key, ref int state) => state = Consume(key), ref result);
        return result;
    }

    // Touches the first and last byte so that the unmasked value is really produced.
    private static int Consume(ReadOnlySpan<byte> secret) => secret[0] + secret[^1] + secret.Length;
}
