using System.Net;
using Encryption.Custom.Tests.Cosmos.TestSupport;
using Microsoft.Azure.Cosmos;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Tests.Cosmos;

/// <summary>
/// A write the service applied whose answer cannot be decrypted must say that it was applied (status, ETag, charge),
/// through every write API, so the application does not retry a create or an increment blindly.
/// </summary>
public sealed class AppliedWriteTests : IDisposable
{
    private const string Document = """{"id":"1","pk":"p0","ssn":"078-05-1120","n":1}""";

    private readonly EncryptionSetup _setup = new(new EncryptionContainerOptions
    {
        Policy = new ContainerEncryptionPolicy(EncryptionSetup.Dek1, ["/ssn"]),
    });

    public static TheoryData<string> Writes => new("create", "replace", "upsert", "patch", "typed create", "typed upsert");

    [Theory]
    [MemberData(nameof(Writes))]
    public async Task Write_AnswerTamperedInTransit_ThrowsAppliedWithStatusEtagAndChargeAndTheWriteIsStored(string write)
    {
        CancellationToken ct = TestContext.Current.CancellationToken;
        if (write is "replace" or "patch")
        {
            await _setup.CreateEncryptedAsync(Document, EncryptionSetup.Dek1, "/ssn");
        }

        // Flip one character of the stored ciphertext in the answer only: the stored document stays intact.
        _setup.Inner.AlterWriteAnswer = answer =>
        {
            string cell = (string)answer["ssn"]!;
            answer["ssn"] = cell[..10] + (cell[10] == 'A' ? 'B' : 'A') + cell[11..];
            return answer;
        };

        EncryptionResponseException applied = await Assert.ThrowsAsync<EncryptionResponseException>(() => WriteAsync(write, ct));

        Assert.True(applied.WriteApplied);
        Assert.Equal(write is "replace" or "patch" ? HttpStatusCode.OK : HttpStatusCode.Created, applied.StatusCode);
        Assert.Equal(6.29, applied.RequestCharge);
        Assert.NotNull(applied.ETag);
        Assert.Equal((string)_setup.Inner.Get("1", EncryptionSetup.P0)!["_etag"]!, applied.ETag);
        EncryptionException cause = Assert.IsType<EncryptionException>(applied.InnerException, exactMatch: false);
        Assert.IsNotType<EncryptionResponseException>(cause);
        Assert.Equal(cause.Kind, applied.Kind);
        Assert.Equal("/ssn", applied.Path);
        Assert.Contains("applied", applied.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("078-05-1120", applied.Message, StringComparison.Ordinal);

        // What was applied is intact: the stored document decrypts.
        _setup.Inner.AlterWriteAnswer = null;
        JObject stored = await _setup.ReadDecryptedAsync("1");
        Assert.Equal("078-05-1120", (string)stored["ssn"]!);
    }

    [Fact]
    public async Task Batch_CommittedButAResultTamperedInTransit_ThrowsAppliedWithEveryOperationsEtag()
    {
        CancellationToken ct = TestContext.Current.CancellationToken;
        await _setup.CreateEncryptedAsync(Document, EncryptionSetup.Dek1, "/ssn");
        _setup.Inner.AlterWriteAnswer = answer =>
        {
            if ((string)answer["id"]! == "2")
            {
                string cell = (string)answer["ssn"]!;
                answer["ssn"] = cell[..10] + (cell[10] == 'A' ? 'B' : 'A') + cell[11..];
            }

            return answer;
        };

        EncryptionResponseException applied = await Assert.ThrowsAsync<EncryptionResponseException>(() => _setup.Container.CreateTransactionalBatch(EncryptionSetup.P0)
            .ReadItem("1")
            .CreateItemStream(EncryptionSetup.ToStream(Document.Replace("\"id\":\"1\"", "\"id\":\"2\"", StringComparison.Ordinal)))
            .PatchItem("1", [PatchOperation.Increment("/n", 1)])
            .ExecuteAsync(ct));

        Assert.True(applied.WriteApplied);
        Assert.Equal(HttpStatusCode.OK, applied.StatusCode);
        Assert.Equal(1, applied.OperationIndex);
        Assert.Equal(6.29 * 3, applied.RequestCharge, 6);
        string?[] stored = [(string)_setup.Inner.Get("1", EncryptionSetup.P0)!["_etag"]!, (string)_setup.Inner.Get("2", EncryptionSetup.P0)!["_etag"]!];
        Assert.Equal(3, applied.OperationETags.Count);
        Assert.Equal(stored[1], applied.OperationETags[1]);
        Assert.Equal(stored[1], applied.ETag);
        Assert.Equal(stored[0], applied.OperationETags[2]);
        Assert.Equal("/ssn", applied.Path);
        Assert.Contains("operation 1", applied.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("078-05-1120", applied.Message, StringComparison.Ordinal);

        // Applied all or nothing: the create and the increment are both stored.
        _setup.Inner.AlterWriteAnswer = null;
        Assert.Equal(2, (int)(await _setup.ReadDecryptedAsync("1"))["n"]!);
        Assert.Equal("078-05-1120", (string)(await _setup.ReadDecryptedAsync("2"))["ssn"]!);
    }

    [Fact]
    public async Task Batch_ReadsOnly_AnswerTampered_IsAnOrdinaryEncryptionException()
    {
        await _setup.CreateEncryptedAsync(Document, EncryptionSetup.Dek1, "/ssn");
        JObject stored = _setup.Inner.Get("1", EncryptionSetup.P0)!;
        string cell = (string)stored["ssn"]!;
        stored["ssn"] = cell[..10] + (cell[10] == 'A' ? 'B' : 'A') + cell[11..];
        _setup.Inner.Put(stored, EncryptionSetup.P0);

        EncryptionException refused = await Assert.ThrowsAsync<EncryptionException>(() => _setup.Container.CreateTransactionalBatch(EncryptionSetup.P0).ReadItem("1").ExecuteAsync(TestContext.Current.CancellationToken));
        Assert.IsNotType<EncryptionResponseException>(refused);
    }

    [Fact]
    public async Task Read_AnswerTampered_IsAnOrdinaryEncryptionException()
    {
        await _setup.CreateEncryptedAsync(Document, EncryptionSetup.Dek1, "/ssn");
        JObject stored = _setup.Inner.Get("1", EncryptionSetup.P0)!;
        string cell = (string)stored["ssn"]!;
        stored["ssn"] = cell[..10] + (cell[10] == 'A' ? 'B' : 'A') + cell[11..];
        _setup.Inner.Put(stored, EncryptionSetup.P0);

        EncryptionException refused = await Assert.ThrowsAsync<EncryptionException>(() => _setup.ReadDecryptedAsync("1"));
        Assert.IsNotType<EncryptionResponseException>(refused);
    }

    public void Dispose() => _setup.Dispose();

    private async Task WriteAsync(string write, CancellationToken ct)
    {
        Container container = _setup.Container;
        switch (write)
        {
            case "create":
                (await container.CreateItemStreamAsync(EncryptionSetup.ToStream(Document), EncryptionSetup.P0, cancellationToken: ct)).Dispose();
                break;
            case "replace":
                (await container.ReplaceItemStreamAsync(EncryptionSetup.ToStream(Document), "1", EncryptionSetup.P0, cancellationToken: ct)).Dispose();
                break;
            case "upsert":
                (await container.UpsertItemStreamAsync(EncryptionSetup.ToStream(Document), EncryptionSetup.P0, cancellationToken: ct)).Dispose();
                break;
            case "patch":
                (await container.PatchItemStreamAsync("1", EncryptionSetup.P0, [PatchOperation.Increment("/n", 1)], cancellationToken: ct)).Dispose();
                break;
            case "typed create":
                await container.CreateItemAsync(JObject.Parse(Document), EncryptionSetup.P0, cancellationToken: ct);
                break;
            default:
                await container.UpsertItemAsync(JObject.Parse(Document), EncryptionSetup.P0, cancellationToken: ct);
                break;
        }
    }
}
