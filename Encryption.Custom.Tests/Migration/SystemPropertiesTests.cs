using Encryption.Custom.Crypto.Pooling;
using Encryption.Custom.Migration;
using Encryption.Custom.Tests.TestSupport;

namespace Encryption.Custom.Tests.Migration;

public sealed class SystemPropertiesTests
{
    [Fact]
    public void CopyWithout_RemovesServiceProperties_KeepsEverythingElseInOrder()
    {
        const string Stored = """{ "id":"1", "_rid":"r", "a": {"_ts":1}, "_self":"s","_etag":"\"e\"", "_ei":{"_en":"k"}, "_attachments":"x","_ts":5,"_lsn":9, "z":[1,2] }""";
        using var output = new PooledBufferWriter();

        SystemProperties.CopyWithout(Stored.Utf8(), output);

        Assert.Equal("""{"id":"1","a": {"_ts":1},"_ei":{"_en":"k"},"z":[1,2]}""", output.WrittenSpan.ToArray().Utf8());
    }

    [Fact]
    public void CopyWithout_RefusesWhatIsNotAJsonObject_WithoutQuotingIt()
    {
        using var output = new PooledBufferWriter();

        EncryptionException error = Assert.Throws<EncryptionException>(() => SystemProperties.CopyWithout("""{"id":"secret-value""".Utf8(), output));

        Assert.Equal(EncryptionErrorKind.MalformedDocument, error.Kind);
        Assert.DoesNotContain("secret", error.Message, StringComparison.Ordinal);
    }
}
