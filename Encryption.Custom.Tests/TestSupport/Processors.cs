using Encryption.Custom.Json;
using Encryption.Custom.Processing;

namespace Encryption.Custom.Tests.TestSupport;

/// <summary>The processors every contract test runs over.</summary>
public static class Processors
{
    public static readonly TheoryData<JsonProcessor> All = new(JsonProcessor.Stream, JsonProcessor.Newtonsoft);

    public static readonly MatrixTheoryData<JsonProcessor, JsonProcessor> Pairs = new(
        [JsonProcessor.Stream, JsonProcessor.Newtonsoft],
        [JsonProcessor.Stream, JsonProcessor.Newtonsoft]);

    public static EncryptionProcessor Create(JsonProcessor kind, EncryptionProcessorOptions? options = null) => EncryptionProcessor.Create(kind, options);
}
