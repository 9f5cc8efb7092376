using System.Security.Cryptography;
using Encryption.Custom.Crypto;

namespace Encryption.Custom.Tests.Crypto;

/// <summary>The AEAD contract, run against every backend.</summary>
public class AeadAes256CbcHmacSha256Tests
{
    // Around the 256-byte stack paths (tag input, padded plaintext) and well past them.
    public static TheoryData<AeadBackendKind, int> BackendsAndLengths
    {
        get
        {
            var data = new TheoryData<AeadBackendKind, int>();
            foreach (AeadBackendKind backend in Enum.GetValues<AeadBackendKind>())
            {
                foreach (int length in new[] { 0, 1, 15, 16, 17, 223, 224, 239, 240, 255, 256, 1000 })
                {
                    data.Add(backend, length);
                }
            }

            return data;
        }
    }

    public static TheoryData<AeadBackendKind> Backends => AeadBackends.All;

    public static TheoryData<AeadBackendKind, bool> BackendsAndIvModes => AeadBackends.AllWithIvModes;

    [Theory]
    [MemberData(nameof(BackendsAndIvModes))]
    public void RoundTrip_EveryLengthUpTo4096_RestoresPlainTextAndMatchesReference(AeadBackendKind backend, bool deterministic)
    {
        byte[] root = RandomNumberGenerator.GetBytes(32);
        byte[] source = RandomNumberGenerator.GetBytes(4096);
        byte[] cell = new byte[AeadAes256CbcHmacSha256.GetCipherTextLength(source.Length)];
        byte[] plainText = new byte[source.Length + 16];
        using AeadAes256CbcHmacSha256 aead = AeadBackends.Create(backend, TestKeySource.FromRootKey(root));

        for (int length = 0; length <= source.Length; length++)
        {
            int cellLength = AeadBackends.Encrypt(aead, deterministic, source.AsSpan(0, length), cell);
            int plainLength = aead.Decrypt(cell.AsSpan(0, cellLength), plainText);

            Assert.Equal(49 + (16 * ((length / 16) + 1)), cellLength);
            Assert.Equal(length, plainLength);
            Assert.True(source.AsSpan(0, length).SequenceEqual(plainText.AsSpan(0, length)), $"length {length}");
            Assert.Equal(source[..length], ReferenceAead.Decrypt(root, cell[..cellLength]));
        }
    }

    [Theory]
    [MemberData(nameof(Backends))]
    public void Encrypt_RandomizedTwice_UsesDifferentIvs(AeadBackendKind backend)
    {
        using AeadAes256CbcHmacSha256 aead = AeadBackends.Create(backend, TestKeySource.Random());
        byte[] plainText = "same value"u8.ToArray();

        byte[] first = aead.Encrypt(plainText);
        byte[] second = aead.Encrypt(plainText);

        Assert.NotEqual(first[33..49], second[33..49]);
        Assert.NotEqual(first, second);
    }

    [Theory]
    [MemberData(nameof(Backends))]
    public void Encrypt_DeterministicTwice_IsIdenticalAndDiffersPerPlainText(AeadBackendKind backend)
    {
        byte[] root = RandomNumberGenerator.GetBytes(32);
        using AeadAes256CbcHmacSha256 aead = AeadBackends.Create(backend, TestKeySource.FromRootKey(root));
        byte[] plainText = RandomNumberGenerator.GetBytes(300);

        byte[] context = AeadBackends.TestIvContext;
        byte[] first = aead.EncryptDeterministic(context, plainText);
        byte[] second = aead.EncryptDeterministic(context, plainText);
        byte[] otherContext = aead.EncryptDeterministic([.. context[..^1], 3], plainText);
        plainText[299] ^= 1;
        byte[] other = aead.EncryptDeterministic(context, plainText);

        Assert.Equal(first, second);
        Assert.NotEqual(first[33..49], other[33..49]);
        Assert.NotEqual(first[33..49], otherContext[33..49]);
        Assert.Equal(ReferenceAead.DeterministicIv(root, context, plainText), other[33..49]);
    }

    [Theory]
    [MemberData(nameof(BackendsAndLengths))]
    public void Decrypt_EveryByteFlipped_IsRejected(AeadBackendKind backend, int length)
    {
        using AeadAes256CbcHmacSha256 aead = AeadBackends.Create(backend, TestKeySource.Random());
        byte[] cell = aead.Encrypt(RandomNumberGenerator.GetBytes(length));

        for (int i = 0; i < cell.Length; i++)
        {
            byte[] allBits = (byte[])cell.Clone();
            allBits[i] ^= 0xFF;
            byte[] oneBit = (byte[])cell.Clone();
            oneBit[i] ^= (byte)(1 << (i % 8));

            AssertRejected(aead, allBits);
            AssertRejected(aead, oneBit);
        }
    }

    [Theory]
    [MemberData(nameof(BackendsAndLengths))]
    public void Decrypt_EveryTruncation_IsRejected(AeadBackendKind backend, int length)
    {
        using AeadAes256CbcHmacSha256 aead = AeadBackends.Create(backend, TestKeySource.Random());
        byte[] cell = aead.Encrypt(RandomNumberGenerator.GetBytes(length));

        for (int kept = 0; kept < cell.Length; kept++)
        {
            AssertRejected(aead, cell[..kept]);
        }
    }

    [Theory]
    [MemberData(nameof(BackendsAndLengths))]
    public void Decrypt_Extended_IsRejected(AeadBackendKind backend, int length)
    {
        using AeadAes256CbcHmacSha256 aead = AeadBackends.Create(backend, TestKeySource.Random());
        byte[] cell = aead.Encrypt(RandomNumberGenerator.GetBytes(length));

        for (int extra = 1; extra <= 48; extra++)
        {
            AssertRejected(aead, [.. cell, .. RandomNumberGenerator.GetBytes(extra)]);
        }

        // A whole repeated last block keeps a valid length and valid padding; only the tag can catch it.
        AssertRejected(aead, [.. cell, .. cell[^16..]]);
    }

    [Theory]
    [MemberData(nameof(BackendsAndLengths))]
    public void Decrypt_WrongKey_IsRejected(AeadBackendKind backend, int length)
    {
        byte[] root = RandomNumberGenerator.GetBytes(32);
        using AeadAes256CbcHmacSha256 writer = AeadBackends.Create(backend, TestKeySource.FromRootKey(root));
        using AeadAes256CbcHmacSha256 otherKey = AeadBackends.Create(backend, TestKeySource.Random());
        using AeadAes256CbcHmacSha256 otherLabels = AeadBackends.Create(backend, TestKeySource.FromRootKey(root, AeadKeyLabels.Legacy));
        byte[] cell = writer.Encrypt(RandomNumberGenerator.GetBytes(length));

        AssertRejected(otherKey, cell);
        AssertRejected(otherLabels, cell);
    }

    [Theory]
    [InlineData(AeadBackendKind.OpenSsl, 10, 0)]
    [InlineData(AeadBackendKind.OpenSsl, 10, 17)]
    [InlineData(AeadBackendKind.OpenSsl, 1000, 0)]
    [InlineData(AeadBackendKind.OpenSsl, 1000, 17)]
    [InlineData(AeadBackendKind.OpenSsl, 1000, 3)]
    [InlineData(AeadBackendKind.Managed, 10, 0)]
    [InlineData(AeadBackendKind.Managed, 1000, 17)]
    [InlineData(AeadBackendKind.Managed, 1000, 3)]
    public void Decrypt_AuthenticCellWithMalformedPadding_IsRejectedAndLeavesNoPlainText(AeadBackendKind backend, int length, int lastByte)
    {
        // A key holder's broken encoder: correct tag over a ciphertext whose last plaintext block has bad PKCS#7.
        byte[] root = RandomNumberGenerator.GetBytes(32);
        byte[] blocks = RandomNumberGenerator.GetBytes(((length / 16) + 1) * 16);
        blocks[^1] = (byte)lastByte;
        if (lastByte == 3)
        {
            blocks[^2] = 3;
            blocks[^3] = 4;
        }

        byte[] iv = RandomNumberGenerator.GetBytes(16);
        using Aes aes = Aes.Create();
        aes.Key = ReferenceAead.DeriveKey(root, false, "encryption");
        byte[] cipherText = aes.EncryptCbc(blocks, iv, PaddingMode.None);
        byte[] tag = HMACSHA256.HashData(ReferenceAead.DeriveKey(root, false, "MAC"), (byte[])[0x01, .. iv, .. cipherText, 0x01]);
        byte[] cell = [0x01, .. tag, .. iv, .. cipherText];
        using AeadAes256CbcHmacSha256 aead = AeadBackends.Create(backend, TestKeySource.FromRootKey(root));

        byte[] destination = new byte[AeadAes256CbcHmacSha256.GetMaxPlainTextLength(cell.Length)];
        Assert.False(aead.TryDecrypt(cell, destination, out int written));
        Assert.Equal(0, written);
        Assert.All(destination, b => Assert.Equal(0, b));
        Assert.Throws<EncryptionException>(() => aead.Decrypt(cell, destination));
    }

    [Theory]
    [MemberData(nameof(Backends))]
    public void Decrypt_DestinationLargerThanNeeded_WritesOnlyThePlainText(AeadBackendKind backend)
    {
        using AeadAes256CbcHmacSha256 aead = AeadBackends.Create(backend, TestKeySource.Random());
        byte[] plainText = RandomNumberGenerator.GetBytes(21);
        byte[] cell = aead.Encrypt(plainText);
        byte[] destination = Enumerable.Repeat((byte)0xAA, 100).ToArray();

        int written = aead.Decrypt(cell, destination);

        Assert.Equal(21, written);
        Assert.Equal(plainText, destination[..21]);
        Assert.All(destination[21..], b => Assert.Equal(0xAA, b));
    }

    [Theory]
    [MemberData(nameof(Backends))]
    public void Encrypt_DestinationOneByteShort_ThrowsArgumentException(AeadBackendKind backend)
    {
        using AeadAes256CbcHmacSha256 aead = AeadBackends.Create(backend, TestKeySource.Random());
        byte[] destination = new byte[AeadAes256CbcHmacSha256.GetCipherTextLength(20) - 1];

        var exception = Assert.Throws<ArgumentException>(() => aead.Encrypt(new byte[20], destination));

        Assert.Equal("destination", exception.ParamName);
    }

    [Theory]
    [MemberData(nameof(Backends))]
    public void DecryptAndTryDecrypt_DestinationOneByteShort_ThrowArgumentException(AeadBackendKind backend)
    {
        using AeadAes256CbcHmacSha256 aead = AeadBackends.Create(backend, TestKeySource.Random());
        byte[] cell = aead.Encrypt(new byte[20]);
        byte[] destination = new byte[AeadAes256CbcHmacSha256.GetMaxPlainTextLength(cell.Length) - 1];

        Assert.Equal("destination", Assert.Throws<ArgumentException>(() => aead.Decrypt(cell, destination)).ParamName);
        Assert.Equal("destination", Assert.Throws<ArgumentException>(() => aead.TryDecrypt(cell, destination, out _)).ParamName);
    }

    [Theory]
    [MemberData(nameof(Backends))]
    public void EncryptAndDecrypt_OverlappingBuffers_ThrowArgumentException(AeadBackendKind backend)
    {
        using AeadAes256CbcHmacSha256 aead = AeadBackends.Create(backend, TestKeySource.Random());
        byte[] buffer = new byte[200];
        int cellLength = aead.Encrypt(buffer.AsSpan(100, 16), buffer.AsSpan(0, 100));

        Assert.Throws<ArgumentException>(() => aead.Encrypt(buffer.AsSpan(0, 16), buffer.AsSpan(10)));
        Assert.Throws<ArgumentException>(() => aead.Decrypt(buffer.AsSpan(0, cellLength), buffer.AsSpan(cellLength - 20)));
    }

    [Theory]
    [MemberData(nameof(Backends))]
    public void ArrayOverloads_RoundTripAndRejectNull(AeadBackendKind backend)
    {
        using AeadAes256CbcHmacSha256 aead = AeadBackends.Create(backend, TestKeySource.Random());
        byte[] plainText = RandomNumberGenerator.GetBytes(1234);

        byte[] cell = aead.Encrypt(plainText);

        Assert.Equal(plainText, aead.Decrypt(cell));
        Assert.Equal(AeadAes256CbcHmacSha256.GetCipherTextLength(1234), cell.Length);
        Assert.Throws<ArgumentNullException>(() => aead.Encrypt(null!));
        Assert.Throws<ArgumentNullException>(() => aead.Decrypt(null!));
        Assert.Equal(AeadErrors.InvalidCipherTextMessage, Assert.Throws<EncryptionException>(() => aead.Decrypt(cell[..^1])).Message);
    }

    [Theory]
    [MemberData(nameof(Backends))]
    public void Operations_AfterWarmUp_DoNotAskTheKeySourceAgain(AeadBackendKind backend)
    {
        TestKeySource keys = TestKeySource.Random();
        using AeadAes256CbcHmacSha256 aead = AeadBackends.Create(backend, keys);
        byte[] cell = aead.EncryptDeterministic(AeadBackends.TestIvContext, new byte[40]);
        aead.Decrypt(cell);
        int usesAfterWarmUp = keys.Uses;

        for (int i = 0; i < 100; i++)
        {
            aead.Decrypt(aead.EncryptDeterministic(AeadBackends.TestIvContext, new byte[i]));
        }

        Assert.Equal(usesAfterWarmUp, keys.Uses);
    }

    [Theory]
    [MemberData(nameof(Backends))]
    public void RandomizedEncryptAndDecrypt_NeverRequestTheIvKey(AeadBackendKind backend)
    {
        TestKeySource keys = TestKeySource.Random();
        using AeadAes256CbcHmacSha256 aead = AeadBackends.Create(backend, keys);

        aead.Decrypt(aead.Encrypt(new byte[40]));

        Assert.True(keys.WasRequested(AeadSubKey.Encryption));
        Assert.True(keys.WasRequested(AeadSubKey.Mac));
        Assert.False(keys.WasRequested(AeadSubKey.Iv));
    }

    [Theory]
    [MemberData(nameof(Backends))]
    public void Operations_AfterDispose_ThrowObjectDisposedAndNoContextIsLeft(AeadBackendKind backend)
    {
        AeadAes256CbcHmacSha256 aead = AeadBackends.Create(backend, TestKeySource.Random());
        byte[] cell = aead.Encrypt(new byte[10]);
        Assert.True(aead.LiveContexts > 0);

        aead.Dispose();
        aead.Dispose();

        Assert.Equal(0, aead.LiveContexts);
        Assert.Throws<ObjectDisposedException>(() => aead.Encrypt(new byte[10], new byte[65]));
        Assert.Throws<ObjectDisposedException>(() => aead.Decrypt(cell, new byte[64]));
        Assert.Throws<ObjectDisposedException>(() => aead.TryDecrypt(cell, new byte[64], out _));
    }

    [Theory]
    [MemberData(nameof(Backends))]
    public void Encrypt_KeySourceReleasedBeforeFirstUse_ThrowsObjectDisposedAndKeepsNoContext(AeadBackendKind backend)
    {
        TestKeySource keys = TestKeySource.Random();
        using AeadAes256CbcHmacSha256 aead = AeadBackends.Create(backend, keys);
        keys.Release();

        Assert.Throws<ObjectDisposedException>(() => aead.Encrypt(new byte[10]));
        Assert.Equal(0, aead.LiveContexts);
    }

    [Theory]
    [MemberData(nameof(Backends))]
    public void Encrypt_KeySourceFailsMidOperation_DiscardsTheHalfUsedContext(AeadBackendKind backend)
    {
        TestKeySource keys = TestKeySource.Random();
        using AeadAes256CbcHmacSha256 aead = AeadBackends.Create(backend, keys);
        aead.Encrypt(new byte[10]);
        Assert.Equal(1, aead.LiveContexts);
        keys.Release();

        // The pooled context has cipher and MAC keys but not the IV key, so this fails inside the operation.
        Assert.Throws<ObjectDisposedException>(() => aead.EncryptDeterministic(AeadBackends.TestIvContext, new byte[10]));

        Assert.Equal(0, aead.LiveContexts);
    }

    [Theory]
    [InlineData(0, 65)]
    [InlineData(1, 65)]
    [InlineData(15, 65)]
    [InlineData(16, 81)]
    [InlineData(19, 81)]
    [InlineData(8, 65)]
    [InlineData(4096, 4161)]
    public void GetCipherTextLength_PlainTextLength_IsFortyNinePlusPaddedLength(int plainTextLength, int expected)
    {
        Assert.Equal(expected, AeadAes256CbcHmacSha256.GetCipherTextLength(plainTextLength));
    }

    [Fact]
    public void GetCipherTextLength_OutOfRange_ThrowsArgumentOutOfRange()
    {
        int largest = AeadCellLayout.MaxPlainTextLength;

        Assert.True(AeadAes256CbcHmacSha256.GetCipherTextLength(largest) > largest);
        Assert.Throws<ArgumentOutOfRangeException>(() => AeadAes256CbcHmacSha256.GetCipherTextLength(largest + 1));
        Assert.Throws<ArgumentOutOfRangeException>(() => AeadAes256CbcHmacSha256.GetCipherTextLength(-1));
        Assert.Throws<ArgumentOutOfRangeException>(() => AeadAes256CbcHmacSha256.GetCipherTextLength(int.MaxValue));
    }

    [Fact]
    public void GetMaxPlainTextLength_OfEveryCellLength_BoundsThePlainTextTightly()
    {
        for (int length = 0; length <= 1000; length++)
        {
            int max = AeadAes256CbcHmacSha256.GetMaxPlainTextLength(AeadAes256CbcHmacSha256.GetCipherTextLength(length));

            Assert.InRange(max, length, length + 15);
            Assert.Equal(15, max % 16);
        }

        Assert.Equal(0, AeadAes256CbcHmacSha256.GetMaxPlainTextLength(0));
        Assert.Throws<ArgumentOutOfRangeException>(() => AeadAes256CbcHmacSha256.GetMaxPlainTextLength(-1));
    }

    private static void AssertRejected(AeadAes256CbcHmacSha256 aead, byte[] cell)
    {
        byte[] destination = Enumerable.Repeat((byte)0xAA, AeadAes256CbcHmacSha256.GetMaxPlainTextLength(cell.Length)).ToArray();

        var exception = Assert.Throws<EncryptionException>(() => aead.Decrypt(cell, destination));
        bool accepted = aead.TryDecrypt(cell, destination, out int written);

        Assert.Equal(EncryptionErrorKind.InvalidCipherText, exception.Kind);
        Assert.Equal(AeadErrors.InvalidCipherTextMessage, exception.Message);
        Assert.Null(exception.InnerException);
        Assert.False(accepted);
        Assert.Equal(0, written);
        Assert.All(destination, b => Assert.Equal(0xAA, b));
    }
}
