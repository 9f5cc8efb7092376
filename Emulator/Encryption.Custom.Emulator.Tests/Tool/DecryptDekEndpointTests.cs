using System.Text;
using Newtonsoft.Json.Linq;
using static Encryption.Custom.Emulator.Tests.Migration.MigrationScenario;

namespace Encryption.Custom.Emulator.Tests.Tool;

/// <summary>
/// <c>cosmos-encryption decrypt --dek-endpoint</c>: a document as the service stores it, decrypted with the DEK it
/// names read from the DEK container on the endpoint and unwrapped with the KEK file. In process
/// (<see cref="ToolInProcess"/>): the same entry point as the child process, minus a process start-up per test.
/// </summary>
public sealed class DecryptDekEndpointTests(ToolFixture fixture) : IClassFixture<ToolFixture>
{
    private static readonly TimeSpan s_runBound = TimeSpan.FromMinutes(2);

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private string[] DekEndpointArguments =>
        ["decrypt", "--dek-endpoint", fixture.Endpoint.Uri.ToString(), "--dek-database", fixture.Database.Id, "--dek-container", ToolFixture.DekContainer];

    [Fact]
    public async Task Decrypt_DekFromTheEndpointAndKekFile_RestoresTheStoredDocument()
    {
        Container raw = await fixture.CreateContainerAsync(Ct);
        Container writer = raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { Policy = new ContainerEncryptionPolicy(ToolFixture.Dek2, Paths) });
        JObject document = Document(7, 3);
        await writer.CreateItemAsync(document, PartitionKeyOf(document), cancellationToken: Ct);
        JObject stored = (await ReadStoredAsync(raw, Ct))[DocumentId(7)];
        Assert.Equal(ToolFixture.Dek2, KeyId(stored));

        ToolResult run = (await ToolInProcess.RunAsync(
            fixture.Endpoint, [.. DekEndpointArguments, "--kek-file", fixture.KekFile], s_runBound, stdin: Encoding.UTF8.GetBytes(stored.ToString()), cancellationToken: Ct)).AssertSuccess();

        JObject decrypted = JObject.Parse(run.Output);
        Assert.Null(decrypted["_ei"]);
        foreach (JProperty property in document.Properties())
        {
            Assert.True(JToken.DeepEquals(property.Value, decrypted[property.Name]), property.Name);
        }
    }

    [Fact]
    public async Task Decrypt_DekMissingFromTheContainer_FailsAsKeyUnavailableWithExitCodeThree()
    {
        Container raw = await fixture.CreateContainerAsync(Ct);
        Container writer = raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { Policy = new ContainerEncryptionPolicy(ToolFixture.Dek1, Paths) });
        JObject document = Document(8, 0);
        await writer.CreateItemAsync(document, PartitionKeyOf(document), cancellationToken: Ct);
        string stored = (await ReadStoredAsync(raw, Ct))[DocumentId(8)].ToString().Replace($"\"{ToolFixture.Dek1}\"", "\"no-such-dek\"", StringComparison.Ordinal);

        ToolResult run = await ToolInProcess.RunAsync(fixture.Endpoint, [.. DekEndpointArguments, "--kek-file", fixture.KekFile], s_runBound, stdin: Encoding.UTF8.GetBytes(stored), cancellationToken: Ct);

        string line = run.AssertFailure(3, "KeyUnavailable");
        Assert.StartsWith("cosmos-encryption: KeyUnavailable (dekId 'no-such-dek')", line, StringComparison.Ordinal);
        Assert.DoesNotContain(Ssn(8, 0), line, StringComparison.Ordinal);
        Assert.Empty(run.Lines);
    }
}
