namespace Encryption.Custom.Tool.Tests.TestSupport;

/// <summary>The documents the command tests work on, and the values that must never leak into an error line.</summary>
internal static class TestDocuments
{
    public const string KeyId = "dek-1";

    /// <summary>Every JSON type, a null and a non-ASCII string; compact, with numbers as both processors write them.</summary>
    public const string Plain =
        """{"id":"doc-1","ssn":"123-45-6789","salary":98765,"ratio":0.25,"active":true,"address":{"city":"Zürich","zip":"8000"},"tags":["a","b"],"nothing":null,"plain":"visible"}""";

    /// <summary>The paths given to encrypt; <c>/nothing</c> (null) and <c>/absent</c> are skipped.</summary>
    public static readonly string[] PathsToEncrypt = ["/ssn", "/salary", "/ratio", "/active", "/address", "/tags", "/nothing", "/absent"];

    /// <summary>What <c>_ep</c> lists after encrypting <see cref="Plain"/> with <see cref="PathsToEncrypt"/>.</summary>
    public static readonly string[] EncryptedPaths = ["/ssn", "/salary", "/ratio", "/active", "/address", "/tags"];

    /// <summary>Plaintext values that an error line must never show.</summary>
    public static readonly string[] Secrets = ["123-45-6789", "98765", "Zürich", "8000"];

    /// <summary>The encrypt arguments for <see cref="PathsToEncrypt"/>.</summary>
    public static string[] EncryptArguments(string keyFile, string processor = "stream") =>
        ["encrypt", "--key-file", keyFile, "--dek-id", KeyId, .. PathsToEncrypt.SelectMany(p => new[] { "--path", p }), "--processor", processor];
}
