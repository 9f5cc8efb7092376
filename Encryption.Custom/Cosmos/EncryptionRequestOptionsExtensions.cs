using Microsoft.Azure.Cosmos;

namespace Encryption.Custom;

/// <summary>
/// Attaches <see cref="EncryptionOptions"/> to patch requests, whose option types the SDK seals. A patch through an
/// encryption container always encrypts new values of the paths the stored document already lists as encrypted;
/// these options add paths that must be encrypted even if the document does not list them yet (for example a
/// property that was <c>null</c>, and therefore not encrypted, when the document was written).
/// </summary>
public static class EncryptionRequestOptionsExtensions
{
    /// <summary>The key under which the options travel in <see cref="RequestOptions.Properties"/>.</summary>
    public const string EncryptionOptionsPropertyName = "Encryption.Custom.EncryptionOptions";

    /// <summary>Attaches <paramref name="encryptionOptions"/> to <paramref name="requestOptions"/> (and returns it).</summary>
    /// <param name="requestOptions">The patch options.</param>
    /// <param name="encryptionOptions">Paths to encrypt, the DEK for a document that is not encrypted yet, and the processor.</param>
    /// <returns><paramref name="requestOptions"/>.</returns>
    /// <exception cref="ArgumentNullException">An argument is null.</exception>
    public static PatchItemRequestOptions WithEncryptionOptions(this PatchItemRequestOptions requestOptions, EncryptionOptions encryptionOptions)
    {
        Attach(requestOptions, encryptionOptions);
        return requestOptions;
    }

    /// <summary>Attaches <paramref name="encryptionOptions"/> to a transactional batch patch (and returns its options).</summary>
    /// <param name="requestOptions">The batch patch options.</param>
    /// <param name="encryptionOptions">Paths to encrypt, the DEK for a document that is not encrypted yet, and the processor.</param>
    /// <returns><paramref name="requestOptions"/>.</returns>
    /// <exception cref="ArgumentNullException">An argument is null.</exception>
    public static TransactionalBatchPatchItemRequestOptions WithEncryptionOptions(this TransactionalBatchPatchItemRequestOptions requestOptions, EncryptionOptions encryptionOptions)
    {
        Attach(requestOptions, encryptionOptions);
        return requestOptions;
    }

    /// <summary>The encryption options attached with <c>WithEncryptionOptions</c>, if any.</summary>
    internal static EncryptionOptions? GetAttachedEncryptionOptions(RequestOptions? requestOptions) =>
        requestOptions?.Properties is { } properties && properties.TryGetValue(EncryptionOptionsPropertyName, out object? value)
            ? value as EncryptionOptions
            : null;

    private static void Attach(RequestOptions requestOptions, EncryptionOptions encryptionOptions)
    {
        ArgumentNullException.ThrowIfNull(requestOptions);
        ArgumentNullException.ThrowIfNull(encryptionOptions);
        var properties = requestOptions.Properties is { } existing
            ? new Dictionary<string, object>(existing, StringComparer.Ordinal)
            : new Dictionary<string, object>(StringComparer.Ordinal);
        properties[EncryptionOptionsPropertyName] = encryptionOptions;
        requestOptions.Properties = properties;
    }
}
