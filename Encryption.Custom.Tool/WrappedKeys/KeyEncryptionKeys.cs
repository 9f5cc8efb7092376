using Azure.Identity;
using Encryption.Custom.AzureKeyVault;
using Encryption.Custom.Tool.CommandLine;
using Encryption.Custom.Tool.Errors;

namespace Encryption.Custom.Tool.WrappedKeys;

/// <summary>The key-wrap provider that unwraps a DEK: the library's local provider over a key file, or Key Vault.</summary>
internal static class KeyEncryptionKeys
{
    /// <summary>The kind of a key-encryption key file that cannot be read or holds no supported key.</summary>
    public const string InvalidKekFileKind = "InvalidKeyEncryptionKeyFile";

    /// <summary>
    /// The provider for <paramref name="metadata"/> (the DEK document's key-wrap metadata). A local key file is
    /// registered under the key name the metadata gives, so the library resolves it as it would in an application.
    /// </summary>
    /// <exception cref="ToolException">The key file cannot be read or holds no supported key (exit code 3).</exception>
    public static EncryptionKeyWrapProvider Open(WrappedKeyArguments arguments, EncryptionKeyWrapMetadata metadata) =>
        Open(arguments.KekFile, [metadata]);

    /// <summary>
    /// The provider for the DEKs with these key-wrap metadata: Key Vault without <paramref name="kekFile"/>, else the
    /// local key file registered under every key name the metadata give (one key-encryption key wraps them all).
    /// </summary>
    /// <exception cref="ToolException">The key file cannot be read or holds no supported key (exit code 3).</exception>
    public static EncryptionKeyWrapProvider Open(string? kekFile, IEnumerable<EncryptionKeyWrapMetadata> metadata)
    {
        if (kekFile is not { } path)
        {
            return new AzureKeyVaultKeyWrapProvider(new DefaultAzureCredential());
        }

        return OpenLocal(metadata.Select(m => m.Name ?? m.Value).Distinct(StringComparer.Ordinal).Select(name => (path, name)));
    }

    /// <summary>A local provider holding each file's key under its name (rewrap-dek: the old and the new key-encryption key).</summary>
    /// <exception cref="ToolException">A key file cannot be read or holds no supported key (exit code 3).</exception>
    public static LocalKeyWrapProvider OpenLocal(IEnumerable<(string Path, string Name)> keys)
    {
        var provider = new LocalKeyWrapProvider();
        try
        {
            foreach ((string path, string name) in keys)
            {
                if (StartsWithJson(path))
                {
                    provider.AddJsonWebKeyFile(name, path);
                }
                else
                {
                    provider.AddRsaPemFile(name, path);
                }
            }

            return provider;
        }
        catch (Exception exception) when (exception is IOException or UnauthorizedAccessException)
        {
            provider.Dispose();
            throw ToolException.BadInput(InvalidKekFileKind, $"The key-encryption key file cannot be read ({exception.GetType().Name}).", exception);
        }
        catch (Exception exception) when (exception is FormatException or ArgumentException or System.Security.Cryptography.CryptographicException)
        {
            // The library's message may quote a field name, never key bytes; the path is not printed.
            provider.Dispose();
            throw ToolException.BadInput(InvalidKekFileKind, "The key-encryption key file holds no supported key (a JSON Web Key of type RSA or oct, or an RSA PEM).", exception);
        }
    }

    // A JWK is a JSON object; a PEM file starts with "-----BEGIN". Only the first non-whitespace byte is looked at.
    private static bool StartsWithJson(string path)
    {
        using FileStream file = new(path, FileMode.Open, FileAccess.Read, FileShare.Read, bufferSize: 0);
        Span<byte> one = stackalloc byte[1];
        while (file.Read(one) == 1)
        {
            if (one[0] is not ((byte)' ' or (byte)'\t' or (byte)'\r' or (byte)'\n'))
            {
                return one[0] == (byte)'{';
            }
        }

        return false;
    }
}
