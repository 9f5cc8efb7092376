using System.Buffers.Text;
using System.Security.Cryptography;
using System.Text;
using System.Text.Json.Nodes;
using Encryption.Custom.Keys.Local;
using Encryption.Custom.Tests.Keys.TestSupport;

namespace Encryption.Custom.Tests.Keys.Local;

public sealed class LocalKeyWrapProviderTests : IDisposable
{
    private readonly string _directory = Directory.CreateTempSubdirectory("keys-local-").FullName;
    private readonly LocalKeyWrapProvider _provider = new();

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    public void Dispose()
    {
        _provider.Dispose();
        Directory.Delete(_directory, recursive: true);
    }

    [Theory]
    [InlineData(KeyWrapAlgorithm.RsaOaep)]
    [InlineData(KeyWrapAlgorithm.RsaOaep256)]
    public async Task WrapUnwrap_RsaKeyFromPemFile_RoundTrips(string algorithm)
    {
        using RSA rsa = TestRsaKeys.First();
        string path = Path.Combine(_directory, "kek.pem");
        await File.WriteAllTextAsync(path, rsa.ExportPkcs8PrivateKeyPem(), Ct);
        _provider.AddRsaPemFile("kek", path);
        byte[] dek = RandomNumberGenerator.GetBytes(32);

        EncryptionKeyWrapResult wrapped = await _provider.WrapKeyAsync(dek, LocalKeyWrapProvider.CreateMetadata("kek", algorithm), Ct);
        using EncryptionKeyUnwrapResult unwrapped = await _provider.UnwrapKeyAsync(wrapped.WrappedDataEncryptionKey, wrapped.EncryptionKeyWrapMetadata, Ct);

        Assert.Equal(256, wrapped.WrappedDataEncryptionKey.Length);
        Assert.Equal(dek, unwrapped.DataEncryptionKey.ToArray());
        Assert.Equal(TimeSpan.FromHours(2), unwrapped.ClientCacheTimeToLive);
    }

    [Theory]
    [InlineData(KeyWrapAlgorithm.RsaOaep, "SHA1")]
    [InlineData(KeyWrapAlgorithm.RsaOaep256, "SHA256")]
    public async Task Wrap_RsaKeyFromJwkFile_IsOaepWithTheNamedHash(string algorithm, string hash)
    {
        using RSA rsa = TestRsaKeys.First();
        string path = Path.Combine(_directory, "kek.json");
        await File.WriteAllTextAsync(path, ToJwk(rsa.ExportParameters(includePrivateParameters: true)), Ct);
        _provider.AddJsonWebKeyFile("kek", path);
        byte[] dek = RandomNumberGenerator.GetBytes(32);

        EncryptionKeyWrapResult wrapped = await _provider.WrapKeyAsync(dek, LocalKeyWrapProvider.CreateMetadata("kek", algorithm), Ct);

        // Decrypting with the original key and the expected padding proves the algorithm, not just a round trip.
        RSAEncryptionPadding padding = RSAEncryptionPadding.CreateOaep(new HashAlgorithmName(hash));
        Assert.Equal(dek, rsa.Decrypt(wrapped.WrappedDataEncryptionKey.ToArray(), padding));
    }

    [Fact]
    public async Task Unwrap_RsaKeyFromJwkWithShortPrivateMembers_RoundTrips()
    {
        // JWK integers drop leading zero bytes; find a key where at least one private member is shorter than its slot.
        RSAParameters parameters;
        RSA rsa;
        do
        {
            // 512 bits keeps the search fast; RSA-OAEP (SHA-1) still fits a 16-byte payload.
            rsa = RSA.Create(512);
            parameters = rsa.ExportParameters(includePrivateParameters: true);
        }
        while (parameters.D![0] != 0 && parameters.P![0] != 0 && parameters.Q![0] != 0 && parameters.DP![0] != 0 && parameters.DQ![0] != 0 && parameters.InverseQ![0] != 0 && Dispose(rsa));

        using (rsa)
        {
            _provider.AddJsonWebKey("kek", Encoding.UTF8.GetBytes(ToJwk(parameters)));
            byte[] payload = RandomNumberGenerator.GetBytes(16);
            byte[] wrapped = rsa.Encrypt(payload, RSAEncryptionPadding.OaepSHA1);

            using EncryptionKeyUnwrapResult unwrapped = await _provider.UnwrapKeyAsync(wrapped, LocalKeyWrapProvider.CreateMetadata("kek", KeyWrapAlgorithm.RsaOaep), Ct);

            Assert.Equal(payload, unwrapped.DataEncryptionKey.ToArray());
        }
    }

    [Fact]
    public async Task Unwrap_PublicOnlyJwk_WrapsButCannotUnwrap()
    {
        using RSA rsa = TestRsaKeys.First();
        _provider.AddJsonWebKey("public", Encoding.UTF8.GetBytes(ToJwk(rsa.ExportParameters(includePrivateParameters: false))));
        EncryptionKeyWrapMetadata metadata = LocalKeyWrapProvider.CreateMetadata("public", KeyWrapAlgorithm.RsaOaep256);
        byte[] dek = RandomNumberGenerator.GetBytes(32);

        EncryptionKeyWrapResult wrapped = await _provider.WrapKeyAsync(dek, metadata, Ct);
        var error = await Assert.ThrowsAsync<EncryptionException>(() => _provider.UnwrapKeyAsync(wrapped.WrappedDataEncryptionKey, metadata, Ct));

        Assert.Equal(dek, rsa.Decrypt(wrapped.WrappedDataEncryptionKey.ToArray(), RSAEncryptionPadding.OaepSHA256));
        Assert.Equal(EncryptionErrorKind.KeyUnavailable, error.Kind);
        Assert.Contains("no private part", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Wrap_PublicOnlyPem_EncryptsForThePrivateKey()
    {
        using RSA rsa = TestRsaKeys.First();
        _provider.AddRsaPem("public", rsa.ExportSubjectPublicKeyInfoPem());
        byte[] dek = RandomNumberGenerator.GetBytes(32);

        EncryptionKeyWrapResult wrapped = await _provider.WrapKeyAsync(dek, LocalKeyWrapProvider.CreateMetadata("public", KeyWrapAlgorithm.RsaOaep), Ct);

        Assert.Equal(dek, rsa.Decrypt(wrapped.WrappedDataEncryptionKey.ToArray(), RSAEncryptionPadding.OaepSHA1));
        await Assert.ThrowsAsync<EncryptionException>(() => _provider.UnwrapKeyAsync(wrapped.WrappedDataEncryptionKey, LocalKeyWrapProvider.CreateMetadata("public", KeyWrapAlgorithm.RsaOaep), Ct));
    }

    [Theory]
    [MemberData(nameof(AesKeyWrapVectors.Rfc3394), MemberType = typeof(AesKeyWrapVectors))]
    public async Task Wrap_AesKeyFromOctJwk_MatchesRfc3394Vector(string section, string kek, string keyData, string expected)
    {
        string jwk = $"{{\"kty\":\"oct\",\"k\":\"{Base64Url.EncodeToString(Convert.FromHexString(kek))}\",\"alg\":\"A256KW\"}}";
        _provider.AddJsonWebKey("aes", Encoding.UTF8.GetBytes(jwk));

        EncryptionKeyWrapResult wrapped = await _provider.WrapKeyAsync(Convert.FromHexString(keyData), LocalKeyWrapProvider.CreateMetadata("aes", KeyWrapAlgorithm.AesKeyWrap), Ct);
        using EncryptionKeyUnwrapResult unwrapped = await _provider.UnwrapKeyAsync(wrapped.WrappedDataEncryptionKey, wrapped.EncryptionKeyWrapMetadata, Ct);

        Assert.Equal(expected, Convert.ToHexString(wrapped.WrappedDataEncryptionKey.Span));
        Assert.Equal(keyData, Convert.ToHexString(unwrapped.DataEncryptionKey));
        Assert.NotNull(section);
    }

    [Theory]
    [MemberData(nameof(AesKeyWrapVectors.Rfc5649), MemberType = typeof(AesKeyWrapVectors))]
    public async Task Wrap_AesKeyPadded_MatchesRfc5649Vector(string name, string kek, string key, string expected)
    {
        _provider.AddAesKey("aes", Convert.FromHexString(kek));

        EncryptionKeyWrapResult wrapped = await _provider.WrapKeyAsync(Convert.FromHexString(key), LocalKeyWrapProvider.CreateMetadata("aes", KeyWrapAlgorithm.AesKeyWrapPadded), Ct);
        using EncryptionKeyUnwrapResult unwrapped = await _provider.UnwrapKeyAsync(wrapped.WrappedDataEncryptionKey, wrapped.EncryptionKeyWrapMetadata, Ct);

        Assert.Equal(expected, Convert.ToHexString(wrapped.WrappedDataEncryptionKey.Span));
        Assert.Equal(key, Convert.ToHexString(unwrapped.DataEncryptionKey));
        Assert.NotNull(name);
    }

    [Theory]
    [InlineData(KeyWrapAlgorithm.AesKeyWrap)]
    [InlineData(KeyWrapAlgorithm.AesKeyWrapPadded)]
    public async Task Unwrap_WithAnotherAesKey_ThrowsKeyUnavailableWithoutKeyBytes(string algorithm)
    {
        byte[] dek = RandomNumberGenerator.GetBytes(32);
        _provider.AddAesKey("one", RandomNumberGenerator.GetBytes(32));
        _provider.AddAesKey("two", RandomNumberGenerator.GetBytes(32));
        EncryptionKeyWrapResult wrapped = await _provider.WrapKeyAsync(dek, LocalKeyWrapProvider.CreateMetadata("one", algorithm), Ct);

        var error = await Assert.ThrowsAsync<EncryptionException>(() => _provider.UnwrapKeyAsync(wrapped.WrappedDataEncryptionKey, LocalKeyWrapProvider.CreateMetadata("two", algorithm), Ct));

        Assert.Equal(EncryptionErrorKind.KeyUnavailable, error.Kind);
        Assert.Contains("'two'", error.Message, StringComparison.Ordinal);
        Assert.DoesNotContain(Convert.ToHexString(dek), error.ToString(), StringComparison.OrdinalIgnoreCase);
        Assert.DoesNotContain(Convert.ToBase64String(dek), error.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Unwrap_TamperedRsaWrap_ThrowsKeyUnavailable()
    {
        using RSA rsa = TestRsaKeys.First();
        _provider.AddRsaKey("kek", rsa);
        EncryptionKeyWrapMetadata metadata = LocalKeyWrapProvider.CreateMetadata("kek", KeyWrapAlgorithm.RsaOaep256);
        byte[] wrapped = (await _provider.WrapKeyAsync(new byte[32], metadata, Ct)).WrappedDataEncryptionKey.ToArray();
        wrapped[17] ^= 0x40;

        var error = await Assert.ThrowsAsync<EncryptionException>(() => _provider.UnwrapKeyAsync(wrapped, metadata, Ct));

        Assert.Equal(EncryptionErrorKind.KeyUnavailable, error.Kind);
    }

    [Fact]
    public async Task Unwrap_RsaWrappedWithOtherPadding_ThrowsKeyUnavailable()
    {
        using RSA rsa = TestRsaKeys.First();
        _provider.AddRsaKey("kek", rsa);
        EncryptionKeyWrapResult wrapped = await _provider.WrapKeyAsync(new byte[32], LocalKeyWrapProvider.CreateMetadata("kek", KeyWrapAlgorithm.RsaOaep), Ct);

        await Assert.ThrowsAsync<EncryptionException>(() => _provider.UnwrapKeyAsync(wrapped.WrappedDataEncryptionKey, LocalKeyWrapProvider.CreateMetadata("kek", KeyWrapAlgorithm.RsaOaep256), Ct));
    }

    [Fact]
    public async Task Wrap_UnknownKeyName_ThrowsKeyUnavailable()
    {
        var error = await Assert.ThrowsAsync<EncryptionException>(() => _provider.WrapKeyAsync(new byte[32], LocalKeyWrapProvider.CreateMetadata("missing", KeyWrapAlgorithm.AesKeyWrap), Ct));

        Assert.Equal(EncryptionErrorKind.KeyUnavailable, error.Kind);
        Assert.Contains("'missing'", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Wrap_MetadataOfAnotherProvider_ThrowsArgumentException()
    {
        _provider.AddAesKey("aes", new byte[32]);

        await Assert.ThrowsAsync<ArgumentException>(() => _provider.WrapKeyAsync(new byte[32], new EncryptionKeyWrapMetadata("akv", "aes", "aes", KeyWrapAlgorithm.AesKeyWrap), Ct));
    }

    [Theory]
    [InlineData("aes", KeyWrapAlgorithm.RsaOaep)]
    [InlineData("rsa", KeyWrapAlgorithm.AesKeyWrap)]
    [InlineData("rsa", "RSA1_5")]
    public async Task Wrap_AlgorithmTheKeyCannotDo_ThrowsArgumentException(string keyName, string algorithm)
    {
        using RSA rsa = TestRsaKeys.First();
        _provider.AddRsaKey("rsa", rsa);
        _provider.AddAesKey("aes", new byte[32]);

        await Assert.ThrowsAsync<ArgumentException>(() => _provider.WrapKeyAsync(new byte[32], LocalKeyWrapProvider.CreateMetadata(keyName, algorithm), Ct));
    }

    [Fact]
    public void AddAesKey_SameNameTwice_Throws()
    {
        _provider.AddAesKey("aes", new byte[16]);

        Assert.Throws<ArgumentException>(() => _provider.AddAesKey("aes", new byte[16]));
    }

    [Theory]
    [InlineData("{\"kty\":\"EC\",\"crv\":\"P-256\"}")]
    [InlineData("{\"kty\":\"oct\"}")]
    [InlineData("{\"kty\":\"RSA\",\"n\":\"AQAB\"}")]
    [InlineData("{\"kty\":\"oct\",\"k\":\"not base64url!\"}")]
    [InlineData("[1,2]")]
    [InlineData("{\"kty\":")]
    public void AddJsonWebKey_Unsupported_ThrowsFormatException(string jwk)
    {
        Assert.Throws<FormatException>(() => _provider.AddJsonWebKey("bad", Encoding.UTF8.GetBytes(jwk)));
    }

    [Fact]
    public void AddJsonWebKey_RepeatedSecretMember_IsRefused()
    {
        // A second "k" or "d" would overwrite the first decoded copy of the secret, which then stayed in memory unwiped.
        using RSA rsa = TestRsaKeys.First();
        string rsaJwk = ToJwk(rsa.ExportParameters(includePrivateParameters: true));
        string repeatedD = rsaJwk.Insert(rsaJwk.IndexOf("\"d\"", StringComparison.Ordinal), "\"d\":\"AQAB\",");

        Assert.Throws<FormatException>(() => _provider.AddJsonWebKey("oct", "{\"kty\":\"oct\",\"k\":\"AAECAwQFBgcICQoLDA0ODw\",\"k\":\"AAECAwQFBgcICQoLDA0ODw\"}"u8));
        Assert.Throws<FormatException>(() => _provider.AddJsonWebKey("rsa", Encoding.UTF8.GetBytes(repeatedD)));
        Assert.Throws<FormatException>(() => _provider.AddJsonWebKey("kty", "{\"kty\":\"oct\",\"kty\":\"RSA\",\"k\":\"AAECAwQFBgcICQoLDA0ODw\"}"u8));
    }

    [Theory]
    [InlineData(" ")]
    [InlineData("\t\n")]
    public void KeyName_WhiteSpaceOnly_IsRefused(string name)
    {
        Assert.Throws<ArgumentException>(() => LocalKeyWrapProvider.CreateMetadata(name, KeyWrapAlgorithm.AesKeyWrap));
        Assert.Throws<ArgumentException>(() => _provider.AddAesKey(name, new byte[32]));
        Assert.Throws<ArgumentException>(() => new LocalKeyWrapProvider(new LocalKeyWrapProviderOptions { AllowedKeyNames = { name } }));
    }

    [Fact]
    public async Task WrapAndUnwrap_KeyNotInAllowedKeyNames_ThrowsKeyUnavailableNamingTheKey()
    {
        using var provider = new LocalKeyWrapProvider(new LocalKeyWrapProviderOptions { AllowedKeyNames = { "kek" } });
        provider.AddAesKey("kek", RandomNumberGenerator.GetBytes(32));
        provider.AddAesKey("other", RandomNumberGenerator.GetBytes(32));
        using var reference = new LocalKeyWrapProvider();
        reference.AddAesKey("other", new byte[32]);
        EncryptionKeyWrapResult wrappedByOther = await reference.WrapKeyAsync(new byte[32], LocalKeyWrapProvider.CreateMetadata("other", KeyWrapAlgorithm.AesKeyWrap), Ct);

        EncryptionKeyWrapResult allowed = await provider.WrapKeyAsync(new byte[32], LocalKeyWrapProvider.CreateMetadata("kek", KeyWrapAlgorithm.AesKeyWrap), Ct);
        var wrapError = await Assert.ThrowsAsync<EncryptionException>(() => provider.WrapKeyAsync(new byte[32], LocalKeyWrapProvider.CreateMetadata("other", KeyWrapAlgorithm.AesKeyWrap), Ct));
        var unwrapError = await Assert.ThrowsAsync<EncryptionException>(() => provider.UnwrapKeyAsync(wrappedByOther.WrappedDataEncryptionKey, wrappedByOther.EncryptionKeyWrapMetadata, Ct));

        Assert.Equal(40, allowed.WrappedDataEncryptionKey.Length);
        Assert.Equal(EncryptionErrorKind.KeyUnavailable, wrapError.Kind);
        Assert.Equal(EncryptionErrorKind.KeyUnavailable, unwrapError.Kind);
        Assert.Contains("'other'", unwrapError.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task UnwrapKeyAsync_CustomTimeToLive_IsReported()
    {
        using var provider = new LocalKeyWrapProvider(new LocalKeyWrapProviderOptions { DataEncryptionKeyCacheTimeToLive = TimeSpan.FromMinutes(7) });
        provider.AddAesKey("aes", new byte[32]);
        EncryptionKeyWrapResult wrapped = await provider.WrapKeyAsync(new byte[32], LocalKeyWrapProvider.CreateMetadata("aes", KeyWrapAlgorithm.AesKeyWrap), Ct);

        using EncryptionKeyUnwrapResult unwrapped = await provider.UnwrapKeyAsync(wrapped.WrappedDataEncryptionKey, wrapped.EncryptionKeyWrapMetadata, Ct);

        Assert.Equal(TimeSpan.FromMinutes(7), unwrapped.ClientCacheTimeToLive);
    }

    [Fact]
    public async Task Dispose_ThenUse_ThrowsObjectDisposed()
    {
        var provider = new LocalKeyWrapProvider();
        provider.AddAesKey("aes", new byte[32]);
        provider.Dispose();

        await Assert.ThrowsAsync<ObjectDisposedException>(() => provider.WrapKeyAsync(new byte[32], LocalKeyWrapProvider.CreateMetadata("aes", KeyWrapAlgorithm.AesKeyWrap), Ct));
    }

    private static bool Dispose(RSA rsa)
    {
        rsa.Dispose();
        return true;
    }

    private static string ToJwk(RSAParameters p)
    {
        static string B64(byte[] value) => Base64Url.EncodeToString(value.AsSpan(value.AsSpan().IndexOfAnyExcept((byte)0)));
        var jwk = new JsonObject { ["kty"] = "RSA", ["n"] = B64(p.Modulus!), ["e"] = B64(p.Exponent!) };
        if (p.D is not null)
        {
            jwk["d"] = B64(p.D);
            jwk["p"] = B64(p.P!);
            jwk["q"] = B64(p.Q!);
            jwk["dp"] = B64(p.DP!);
            jwk["dq"] = B64(p.DQ!);
            jwk["qi"] = B64(p.InverseQ!);
        }

        return jwk.ToJsonString();
    }
}
