using Encryption.Custom.Json;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Processing;

namespace Encryption.Custom.Tests.Json;

public sealed class EncryptionOptionsTests
{
    [Fact]
    public void Defaults_AreTheCurrentAlgorithm()
    {
        var options = new EncryptionOptions();

        Assert.Equal(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, options.EncryptionAlgorithm);
        Assert.Null(options.DataEncryptionKeyId);
        Assert.Null(options.PathsToEncrypt);
    }

    [Fact]
    public void PathsToEncrypt_AHashSet_IsAcceptedAndAPathAddedLaterIsEncrypted()
    {
        var paths = new HashSet<string> { "/a" };
        var options = new EncryptionOptions { DataEncryptionKeyId = "k", PathsToEncrypt = paths };
        EncryptionPlan first = options.GetPlan();

        paths.Add("/b");
        EncryptionPlan second = options.GetPlan();

        Assert.Equal(1, first.PathCount);
        Assert.Equal(2, second.PathCount);
        Assert.Same(second, options.GetPlan());
    }

    [Fact]
    public void GetPlan_Unchanged_ReusesTheCompiledPlan()
    {
        var options = new EncryptionOptions { DataEncryptionKeyId = "k", PathsToEncrypt = ["/a", "/b"] };

        Assert.Same(options.GetPlan(), options.GetPlan());
    }

    [Fact]
    public void GetPlan_AnyPropertyOrElementReplaced_Recompiles()
    {
        var paths = new List<string> { "/a" };
        var options = new EncryptionOptions { DataEncryptionKeyId = "k", PathsToEncrypt = paths };
        EncryptionPlan first = options.GetPlan();

        paths[0] = "/b";
        EncryptionPlan afterElement = options.GetPlan();
        options.DataEncryptionKeyId = "k2";
        EncryptionPlan afterKey = options.GetPlan();
        options.PathsToEncrypt = ["/c"];
        EncryptionPlan afterList = options.GetPlan();

        Assert.NotSame(first, afterElement);
        Assert.Equal(0, afterElement.FindPath("b"u8));
        Assert.Equal(-1, afterElement.FindPath("a"u8));
        Assert.Equal("k2", afterKey.DataEncryptionKeyId);
        Assert.Equal("/c", afterList.GetPath(0));
    }

    [Fact]
    public void Plan_EscapesTheKeyIdAndPathsInTheMetadata()
    {
        var options = new EncryptionOptions { DataEncryptionKeyId = "k\"1\\", PathsToEncrypt = ["/a\"b", "/c"] };
        var output = new System.Buffers.ArrayBufferWriter<byte>();

        options.GetPlan().WriteEnvelope(output, [1, 1]);

        string json = "{" + System.Text.Encoding.UTF8.GetString(output.WrittenSpan) + "}";
        using var document = System.Text.Json.JsonDocument.Parse(json);
        System.Text.Json.JsonElement envelope = document.RootElement.GetProperty("_ei");
        Assert.Equal("k\"1\\", envelope.GetProperty("_en").GetString());
        Assert.Equal(["/a\"b", "/c"], envelope.GetProperty("_ep").EnumerateArray().Select(e => e.GetString()!));
    }

    [Fact]
    public void ProcessorOptions_Defaults_AreDocumentedValues()
    {
        var options = new EncryptionProcessorOptions();
        var processor = new StreamProcessor();

        Assert.Equal(16 * 1024 * 1024, options.MaxDocumentLength);
        Assert.Equal(64, options.MaxDepth);
        Assert.Equal(options.MaxDocumentLength, processor.MaxDocumentLength);
        Assert.Equal(options.MaxDepth, processor.MaxDepth);
    }

    [Fact]
    public void ProcessorOptions_OutOfRange_Throw()
    {
        var options = new EncryptionProcessorOptions();

        Assert.Throws<ArgumentOutOfRangeException>(() => options.MaxDocumentLength = 0);
        Assert.Throws<ArgumentOutOfRangeException>(() => options.MaxDepth = 0);
        Assert.Throws<ArgumentOutOfRangeException>(() => options.MaxDepth = EncryptionProcessorOptions.MaxAllowedDepth + 1);
    }

    [Fact]
    public void Create_EachKind_ReturnsThatProcessor()
    {
        Assert.IsType<StreamProcessor>(EncryptionProcessor.Create(JsonProcessor.Stream));
        Assert.IsType<NewtonsoftProcessor>(EncryptionProcessor.Create(JsonProcessor.Newtonsoft));
        Assert.Throws<ArgumentOutOfRangeException>(() => EncryptionProcessor.Create((JsonProcessor)7));
    }
}
