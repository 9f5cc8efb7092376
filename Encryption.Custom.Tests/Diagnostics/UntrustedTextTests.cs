using System.Diagnostics;
using System.Security.Cryptography;
using System.Text;
using Encryption.Custom.Diagnostics;
using Encryption.Custom.Processing;
using Encryption.Custom.Tests.Cosmos.TestSupport;
using Encryption.Custom.Tests.Keys.TestSupport;
using Encryption.Custom.Tests.TestSupport;

namespace Encryption.Custom.Tests.Diagnostics;

/// <summary>A DEK id comes from the document (<c>_en</c>): messages and tags repeat only its start, whatever its length.</summary>
public sealed class UntrustedTextTests
{
    private static readonly string s_longId = "dek-" + new string('x', 100_000);

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public async Task Decrypt_DekIdOfAnyLength_MessageRepeatsOnlyItsStartAndTheExceptionKeepsItWhole(JsonProcessor kind)
    {
        using DataEncryptionKey writer = DataEncryptionKey.Generate(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized);
        string encrypted = Processors.Create(kind).Encrypt("{\"id\":\"1\",\"a\":\"x\"}", writer, new EncryptionOptions { DataEncryptionKeyId = "k", PathsToEncrypt = ["/a"] }).Utf8();
        byte[] planted = Encoding.UTF8.GetBytes(encrypted.Replace("\"_en\":\"k\"", "\"_en\":\"" + s_longId + "\"", StringComparison.Ordinal));
        using var wrap = new LocalKeyWrapProvider();
        wrap.AddAesKey("kek", RandomNumberGenerator.GetBytes(32));
        using var provider = new CosmosDataEncryptionKeyProvider(wrap);
        provider.Initialize(new FakeContainer("keys", "/id"));

        EncryptionException error = await Assert.ThrowsAsync<EncryptionException>(
            async () => await Processors.Create(kind).DecryptAsync(new MemoryStream(planted), new MemoryStream(), new CosmosEncryptor(provider), cancellationToken: TestContext.Current.CancellationToken));

        Assert.Equal(EncryptionErrorKind.KeyUnavailable, error.Kind);
        Assert.Equal(s_longId, error.DataEncryptionKeyId);
        Assert.Contains(s_longId[..UntrustedText.MaxLength] + "…", error.Message, StringComparison.Ordinal);
        Assert.True(error.Message.Length < 400, $"the message is {error.Message.Length} characters long");
    }

    [Fact]
    public void ActivityTag_DekIdOfAnyLength_CarriesOnlyItsStart()
    {
        using var capture = new TelemetryCapture();

        Activity? activity;
        using (OperationTelemetry? telemetry = OperationTelemetry.Start("ReadItemStream", "container"))
        {
            Assert.NotNull(telemetry);
            // The capture sees every activity of the library's source, also those of tests running in parallel:
            // this test's own is the one current inside the operation.
            activity = Activity.Current;
            telemetry.AddDecrypted(s_longId, properties: 1);
        }

        Assert.NotNull(activity);
        Assert.Contains(activity, capture.Activities);
        Assert.Equal(s_longId[..UntrustedText.MaxLength] + "…", activity.GetTagItem(DiagnosticNames.DataEncryptionKeyIdTag));
    }

    [Fact]
    public void Shorten_CutInsideASurrogatePair_KeepsThePairWhole()
    {
        string text = new string('a', UntrustedText.MaxLength - 1) + "😀" + "tail";

        string shortened = UntrustedText.Shorten(text);

        Assert.Equal(new string('a', UntrustedText.MaxLength - 1) + "…", shortened);
        Assert.Equal("short", UntrustedText.Shorten("short"));
    }
}
