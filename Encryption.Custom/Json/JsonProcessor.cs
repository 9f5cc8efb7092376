using Encryption.Custom.Processing;

namespace Encryption.Custom;

/// <summary>Which JSON processor encrypts and decrypts documents.</summary>
public enum JsonProcessor
{
    /// <summary>
    /// <see cref="StreamProcessor"/>: System.Text.Json, streaming over UTF-8 without building a document model,
    /// no allocation per operation. The default.
    /// </summary>
    Stream = 0,

    /// <summary>
    /// <see cref="NewtonsoftProcessor"/>: parses each document into a Newtonsoft.Json <c>JObject</c>, the design of
    /// Microsoft's package default path. Kept as the baseline and as a behavioural oracle.
    /// </summary>
    Newtonsoft = 1,
}
