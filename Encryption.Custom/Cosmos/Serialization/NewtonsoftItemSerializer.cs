using System.Diagnostics.CodeAnalysis;
using System.Text;
using Encryption.Custom.Crypto.Pooling;
using Microsoft.Azure.Cosmos;
using Newtonsoft.Json;
using Newtonsoft.Json.Serialization;

namespace Encryption.Custom.Cosmos.Serialization;

/// <summary>
/// The SDK's default item serializer rebuilt with the same Newtonsoft.Json settings (the SDK's own is internal):
/// default settings, or those <see cref="CosmosSerializationOptions"/> maps to. Serialized items go to a zeroing
/// pooled stream, since they hold the plaintext about to be encrypted.
/// </summary>
/// <remarks>
/// Reflection-based like the SDK's own default serializer, which the SDK uses for typed operations anyway: an
/// application that trims or compiles ahead of time must configure a source-generated serializer on its client.
/// </remarks>
internal sealed class NewtonsoftItemSerializer : CosmosSerializer
{
    private const string SameAsSdk = "The same reflection-based serialization the Cosmos SDK performs for typed operations with its default serializer.";

    private static readonly UTF8Encoding s_utf8 = new(encoderShouldEmitUTF8Identifier: false, throwOnInvalidBytes: true);

    private readonly JsonSerializerSettings? _settings;

    [UnconditionalSuppressMessage("Trimming", "IL2026:RequiresUnreferencedCode", Justification = SameAsSdk)]
    [UnconditionalSuppressMessage("AOT", "IL3050:RequiresDynamicCode", Justification = SameAsSdk)]
    public NewtonsoftItemSerializer(CosmosSerializationOptions? options)
    {
        if (options is null)
        {
            return;
        }

        _settings = new JsonSerializerSettings
        {
            NullValueHandling = options.IgnoreNullValues ? NullValueHandling.Ignore : NullValueHandling.Include,
            Formatting = options.Indented ? Formatting.Indented : Formatting.None,
            ContractResolver = options.PropertyNamingPolicy == CosmosPropertyNamingPolicy.CamelCase
                ? new CamelCasePropertyNamesContractResolver()
                : null,
        };
    }

    [UnconditionalSuppressMessage("Trimming", "IL2026:RequiresUnreferencedCode", Justification = SameAsSdk)]
    [UnconditionalSuppressMessage("AOT", "IL3050:RequiresDynamicCode", Justification = SameAsSdk)]
    public override T FromStream<T>(Stream stream)
    {
        ArgumentNullException.ThrowIfNull(stream);
        using (stream)
        {
            if (typeof(Stream).IsAssignableFrom(typeof(T)))
            {
                return (T)(object)stream;
            }

            using var reader = new StreamReader(stream);
            using var jsonReader = new JsonTextReader(reader);

            // A serializer per call, as the SDK does: shared instances with custom settings have raced.
            return JsonSerializer.Create(_settings).Deserialize<T>(jsonReader)!;
        }
    }

    [UnconditionalSuppressMessage("Trimming", "IL2026:RequiresUnreferencedCode", Justification = SameAsSdk)]
    [UnconditionalSuppressMessage("AOT", "IL3050:RequiresDynamicCode", Justification = SameAsSdk)]
    public override Stream ToStream<T>(T input)
    {
        var stream = new PooledMemoryStream();
        try
        {
            using (var writer = new StreamWriter(stream, s_utf8, bufferSize: 1024, leaveOpen: true))
            using (var jsonWriter = new JsonTextWriter(writer) { Formatting = Formatting.None })
            {
                JsonSerializer.Create(_settings).Serialize(jsonWriter, input);
                jsonWriter.Flush();
            }

            stream.Position = 0;
            return stream;
        }
        catch
        {
            stream.Dispose();
            throw;
        }
    }
}
