using Encryption.Custom.Keys.Caching;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Keys.Cosmos;

/// <summary>Feeds the DEK cache from the provider's container and key-wrap provider.</summary>
internal sealed class CosmosDekCacheSource(CosmosDataEncryptionKeyProvider provider) : DekCacheSource
{
    public override async Task<DataEncryptionKeyProperties> ReadPropertiesAsync(string id, CancellationToken cancellationToken)
    {
        Container container = provider.GetInitializedContainer();
        (ResponseMessage response, DataEncryptionKeyProperties properties) =
            await DataEncryptionKeyContainerCore.ReadCoreAsync(container, id, null, cancellationToken).ConfigureAwait(false);
        response.Dispose();
        return properties;
    }

    public override Task<EncryptionKeyUnwrapResult> UnwrapAsync(DataEncryptionKeyProperties properties, CancellationToken cancellationToken) =>
        provider.EncryptionKeyWrapProvider.UnwrapKeyAsync(properties.WrappedDataEncryptionKey, properties.EncryptionKeyWrapMetadata, cancellationToken);
}
