using Encryption.Custom.Keys;
using Encryption.Custom.Tool.CommandLine;
using Encryption.Custom.Tool.WrappedKeys;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Tool.Migration;

/// <summary>
/// The keys of a migrate run: the library's DEK provider over the DEK container, with the key-encryption key that
/// unwraps the target DEK and the accepted source DEKs. Their DEK documents are read and every one of them unwrapped
/// before the job starts, so that a missing DEK, a DEK wrapped by a key the tool does not have, or an unusable key file
/// fails the run at once (exit code 3) rather than every document.
/// </summary>
internal sealed class MigrationKeys : IAsyncDisposable
{
    private readonly EncryptionKeyWrapProvider _keyWrapProvider;
    private readonly CosmosDataEncryptionKeyProvider _keyProvider;

    private MigrationKeys(EncryptionKeyWrapProvider keyWrapProvider, CosmosDataEncryptionKeyProvider keyProvider)
    {
        _keyWrapProvider = keyWrapProvider;
        _keyProvider = keyProvider;
        Encryptor = new CosmosEncryptor(keyProvider);
    }

    /// <summary>The encryptor the job decrypts and encrypts with.</summary>
    public Encryptor Encryptor { get; }

    /// <exception cref="EncryptionException">A DEK document is missing or malformed (<see cref="EncryptionErrorKind.KeyUnavailable"/>).</exception>
    /// <exception cref="Errors.ToolException">The key-encryption key file cannot be read (exit code 3).</exception>
    public static async Task<MigrationKeys> OpenAsync(CosmosClient client, MigrationArguments arguments, CancellationToken cancellationToken)
    {
        Container dekContainer = client.GetContainer(arguments.DekDatabase ?? arguments.Database, arguments.DekContainer!);
        var metadata = new List<EncryptionKeyWrapMetadata>();
        var algorithms = new Dictionary<string, string>(StringComparer.Ordinal);
        await using (var documents = new DekDocumentEndpoint(dekContainer))
        {
            IEnumerable<string> ids = arguments.TargetDekId is { } target ? arguments.AcceptedDekIds.Prepend(target) : arguments.AcceptedDekIds;
            foreach (string id in ids.Distinct(StringComparer.Ordinal))
            {
                DataEncryptionKeyProperties properties = await documents.ReadAsync(id, cancellationToken).ConfigureAwait(false);
                metadata.Add(properties.EncryptionKeyWrapMetadata);
                algorithms[id] = properties.EncryptionAlgorithm;
            }
        }

        EncryptionKeyWrapProvider keyWrapProvider = KeyEncryptionKeys.Open(arguments.KekFile, metadata);
        var keyProvider = new CosmosDataEncryptionKeyProvider(keyWrapProvider);
        keyProvider.Initialize(dekContainer);
        var keys = new MigrationKeys(keyWrapProvider, keyProvider);
        try
        {
            await keys.ProveAsync(algorithms, cancellationToken).ConfigureAwait(false);
            return keys;
        }
        catch
        {
            await keys.DisposeAsync().ConfigureAwait(false);
            throw;
        }
    }

    // Every key is unwrapped once before anything else happens, through the same provider and encryptor the job
    // uses: a missing, foreign-wrapped or wrong-key DEK fails the run here, with the unwrap's own reason, instead of
    // failing every document that names it.
    private async Task ProveAsync(IReadOnlyDictionary<string, string> algorithms, CancellationToken cancellationToken)
    {
        foreach ((string id, string algorithm) in algorithms)
        {
            try
            {
                using DataEncryptionKeyLease lease = await Encryptor.LeaseEncryptionKeyAsync(id, algorithm, cancellationToken).ConfigureAwait(false);
            }
            catch (EncryptionException exception)
            {
                throw new EncryptionException(
                    exception.Kind,
                    $"The DEK cannot be unwrapped with the given key-encryption key, so nothing was read or written: {exception.Message}",
                    id,
                    innerException: exception);
            }
        }
    }

    public async ValueTask DisposeAsync()
    {
        await _keyProvider.DisposeAsync().ConfigureAwait(false);
        (_keyWrapProvider as IDisposable)?.Dispose();
    }
}
