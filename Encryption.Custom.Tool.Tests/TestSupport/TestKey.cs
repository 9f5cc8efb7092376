using System.Security.Cryptography;
using Encryption.Custom.Keys;

namespace Encryption.Custom.Tool.Tests.TestSupport;

/// <summary>A raw 32-byte DEK for a test, as the tool's key file and as the library's key.</summary>
internal sealed class TestKey
{
    private readonly byte[] _raw;

    public TestKey(byte[] raw)
    {
        Assert.Equal(32, raw.Length);
        _raw = raw;
    }

    public static TestKey Random() => new(RandomNumberGenerator.GetBytes(32));

    /// <summary>The key of the wire-format known-answer vectors: bytes 0x01 … 0x20.</summary>
    public static TestKey KnownAnswer() => new(Enumerable.Range(1, 32).Select(i => (byte)i).ToArray());

    /// <summary>The key as a key file holds it: 64 lowercase hexadecimal characters.</summary>
    public string Hex => Convert.ToHexStringLower(_raw);

    /// <summary>Writes a key file (hex and a newline) into <paramref name="folder"/>.</summary>
    public string WriteKeyFile(TempFolder folder, string name = "dek.hex") => folder.Write(name, Hex + "\n");

    /// <summary>The library's protected key from a copy of the raw bytes (Create wipes what it is given).</summary>
    public DataEncryptionKey CreateDataEncryptionKey(string algorithm = CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized) =>
        DataEncryptionKey.Create((byte[])_raw.Clone(), algorithm);

    /// <summary>
    /// Strings of the key that must never appear in any output: its hex in either case, and its base64.
    /// </summary>
    public IEnumerable<string> Renderings() => [Hex, Hex.ToUpperInvariant(), Convert.ToBase64String(_raw)];
}
