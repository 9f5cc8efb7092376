using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Cosmos.Serialization;

/// <summary>Finds the serializer a client uses for items, so typed operations serialize exactly as without encryption.</summary>
internal static class ItemSerializers
{
    /// <summary>
    /// The client's custom serializer (also what <c>UseSystemTextJsonSerializerWithOptions</c> installs), else the
    /// SDK's Newtonsoft.Json settings with the client's <see cref="CosmosClientOptions.SerializerOptions"/>.
    /// </summary>
    public static CosmosSerializer For(CosmosClientOptions options) =>
        options.Serializer ?? new NewtonsoftItemSerializer(options.SerializerOptions);
}
