using System.Security.Cryptography;

namespace Encryption.Custom.Tests.Keys.TestSupport;

/// <summary>RSA keys generated once per test run (generation costs up to a second on a busy machine); each call imports a fresh instance.</summary>
internal static class TestRsaKeys
{
    private static readonly Lazy<byte[]> s_first = new(() => Generate());
    private static readonly Lazy<byte[]> s_second = new(() => Generate());

    /// <summary>A new instance of the first 2048-bit test key.</summary>
    public static RSA First() => Import(s_first.Value);

    /// <summary>A new instance of a second, different 2048-bit test key.</summary>
    public static RSA Second() => Import(s_second.Value);

    private static byte[] Generate()
    {
        using RSA rsa = RSA.Create(2048);
        return rsa.ExportPkcs8PrivateKey();
    }

    private static RSA Import(byte[] pkcs8)
    {
        RSA rsa = RSA.Create();
        rsa.ImportPkcs8PrivateKey(pkcs8, out _);
        return rsa;
    }
}
