using System.Security.Cryptography;
using System.Text;
using System.Text.Json;
using System.Text.Json.Nodes;
using Encryption.Custom.Emulator.Tests.Migration;
using Encryption.Custom.Tool.Endpoints;

namespace Encryption.Custom.Emulator.Tests.Tool;

/// <summary>
/// create-dek, list-deks and rewrap-dek against the bundled endpoint, run in process: a DEK the tool creates is one
/// the library uses, an existing DEK is never replaced, the listing prints no key bytes, and a rewrapped DEK keeps
/// its raw key (what was encrypted before is decrypted afterwards through the new key-encryption key only).
/// </summary>
public sealed class DekCommandTests(ToolFixture fixture) : IClassFixture<ToolFixture>
{
    private const string Algorithm = CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized;
    private static readonly TimeSpan s_runBound = TimeSpan.FromMinutes(1);

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private string[] DekContainer => ["--endpoint", fixture.Endpoint.Uri.ToString(), "--database", fixture.Database.Id, "--dek-container", ToolFixture.DekContainer];

    [Fact]
    public async Task CreateDek_ThenRewrapDek_KeepsTheRawKeyAndMovesItToTheNewKek()
    {
        string id = "tool-" + Guid.NewGuid().ToString("N");
        byte[] kek2 = RandomNumberGenerator.GetBytes(32);
        string kek2File = Path.Combine(Path.GetTempPath(), $"kek2-{Guid.NewGuid():N}.jwk");
        await File.WriteAllTextAsync(kek2File, Jwk(kek2), Ct);
        try
        {
            ToolResult created = (await RunAsync(["create-dek", .. DekContainer, "--dek-id", id, "--kek-file", fixture.KekFile, "--kek-name", ToolFixture.KekName, "--wrap-algorithm", "AES-KW"])).AssertSuccess();
            JsonObject createdLine = SingleDek(created, id);
            Assert.Equal(ToolFixture.KekName, (string?)createdLine["kek"]!["name"]);

            // The application's own provider (KEK kek1) uses the DEK the tool made.
            byte[] cipherText = await fixture.Encryptor.EncryptAsync("4111-1111"u8.ToArray(), id, Algorithm, Ct);

            ToolResult again = await RunAsync(["create-dek", .. DekContainer, "--dek-id", id, "--kek-file", kek2File, "--kek-name", "kek2", "--wrap-algorithm", "AES-KW"]);
            string refusal = again.AssertFailure(1, "AlreadyExists");
            Assert.Contains($"a DEK with the id '{id}' already exists", refusal, StringComparison.Ordinal);
            Assert.Equal(ToolFixture.KekName, (string?)SingleDek(await ListAsync(), id)["kek"]!["name"]);

            ToolResult wrongKek = await RunAsync(["rewrap-dek", .. DekContainer, "--dek-id", id, "--kek-file", kek2File, "--kek-name", "kek3", "--wrap-algorithm", "AES-KW"]);
            wrongKek.AssertFailure(3, "KeyUnavailable");

            ToolResult rewrapped = (await RunAsync(["rewrap-dek", .. DekContainer, "--dek-id", id, "--kek-file", fixture.KekFile, "--new-kek-file", kek2File, "--kek-name", "kek2", "--wrap-algorithm", "AES-KWP"])).AssertSuccess();
            JsonObject rewrappedLine = SingleDek(rewrapped, id);
            Assert.Equal("kek2", (string?)rewrappedLine["kek"]!["name"]);
            Assert.Equal("AES-KWP", (string?)rewrappedLine["kek"]!["algorithm"]);
            Assert.Equal((string?)createdLine["created"], (string?)rewrappedLine["created"]);

            // Only kek2 now: the DEK document no longer opens with kek1, and the ciphertext from before still decrypts.
            using var onlyKek2 = new LocalKeyWrapProvider();
            onlyKek2.AddJsonWebKey("kek2", Encoding.UTF8.GetBytes(Jwk(kek2)));
            await using var provider = new CosmosDataEncryptionKeyProvider(onlyKek2);
            provider.Initialize(fixture.Database.GetContainer(ToolFixture.DekContainer));
            byte[] plainText = await new CosmosEncryptor(provider).DecryptAsync(cipherText, id, Algorithm, Ct);
            Assert.Equal("4111-1111"u8.ToArray(), plainText);
        }
        finally
        {
            File.Delete(kek2File);
        }
    }

    [Fact]
    public async Task ListDeks_PrintsEveryDekOrderedByIdWithoutKeyBytes()
    {
        ToolResult run = (await ListAsync()).AssertSuccess();

        List<JsonObject> lines = [.. run.Lines.Select(l => JsonNode.Parse(l)!.AsObject())];
        List<string> ids = [.. lines.Select(l => (string)l["id"]!)];
        Assert.Equal(ids.Order(StringComparer.Ordinal), ids);
        Assert.Subset(ids.ToHashSet(), new HashSet<string> { ToolFixture.Dek1, ToolFixture.Dek2, ToolFixture.Dek3 });
        JsonObject dek1 = lines.Single(l => (string)l["id"]! == ToolFixture.Dek1);
        Assert.Equal(Algorithm, (string?)dek1["algorithm"]);
        Assert.Equal(("local", ToolFixture.KekName, ToolFixture.KekName, "AES-KW"), ((string?)dek1["kek"]!["type"], (string?)dek1["kek"]!["name"], (string?)dek1["kek"]!["value"], (string?)dek1["kek"]!["algorithm"]));
        Assert.True(DateTimeOffset.TryParse((string?)dek1["created"], out _));
        Assert.True(DateTimeOffset.TryParse((string?)dek1["modified"], out _));
        Assert.All(lines, l => Assert.Equal(["id", "algorithm", "kek", "created", "modified"], l.Select(p => p.Key)));
        Assert.DoesNotContain("wrapped", run.Output, StringComparison.OrdinalIgnoreCase);
    }

    [Fact]
    public async Task CreateDek_WrapAlgorithmThatDoesNotFitTheKey_IsRefusedWithExitThreeAndStoresNothing()
    {
        string id = "tool-" + Guid.NewGuid().ToString("N");

        ToolResult run = await RunAsync(["create-dek", .. DekContainer, "--dek-id", id, "--kek-file", fixture.KekFile, "--kek-name", ToolFixture.KekName, "--wrap-algorithm", "RSA-OAEP-256"]);

        string error = run.AssertFailure(3, "InvalidOptions");
        Assert.Contains($"dekId '{id}'", error, StringComparison.Ordinal);
        Assert.DoesNotContain((await ListAsync()).Lines, l => l.Contains(id, StringComparison.Ordinal));
    }

    [Fact]
    public async Task CreateDek_MisspeltDekContainer_NamesItAndCreatesNothing()
    {
        string[] args = ["create-dek", .. DekContainer, "--dek-id", "d", "--kek-file", fixture.KekFile, "--kek-name", ToolFixture.KekName, "--wrap-algorithm", "AES-KW"];
        args[Array.IndexOf(args, ToolFixture.DekContainer)] = "kyes";

        ToolResult run = await RunAsync(args);

        string error = run.AssertFailure(1, "NotFound");
        Assert.Contains("the container 'kyes' (--dek-container)", error, StringComparison.Ordinal);
        Assert.Contains("--create-dek-container", error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task CreateDek_WithCreateDekContainer_CreatesTheContainerKeyedById_AndTheDekInIt()
    {
        string container = "keys-" + Guid.NewGuid().ToString("N");
        string[] args = ["create-dek", .. DekContainer, "--dek-id", "first", "--kek-file", fixture.KekFile, "--kek-name", ToolFixture.KekName, "--wrap-algorithm", "AES-KW", "--create-dek-container"];
        args[Array.IndexOf(args, ToolFixture.DekContainer)] = container;

        SingleDek((await RunAsync(args)).AssertSuccess(), "first");

        ContainerProperties created = (await fixture.Database.GetContainer(container).ReadContainerAsync(cancellationToken: Ct)).Resource;
        Assert.Equal("/id", created.PartitionKeyPath);
        args[Array.IndexOf(args, "first")] = "second";
        SingleDek((await RunAsync(args)).AssertSuccess(), "second"); // the container exists now: used as it is
    }

    [Fact]
    public async Task CreateDek_WithCreateDekContainer_OverAContainerWithAnotherPartitionKey_IsRefusedAndWritesNothing()
    {
        Container other = await fixture.Database.CreateContainerAsync("other-" + Guid.NewGuid().ToString("N"), "/pk", cancellationToken: Ct);
        string[] args = ["create-dek", .. DekContainer, "--dek-id", "d", "--kek-file", fixture.KekFile, "--kek-name", ToolFixture.KekName, "--wrap-algorithm", "AES-KW", "--create-dek-container"];
        args[Array.IndexOf(args, ToolFixture.DekContainer)] = other.Id;

        string error = (await RunAsync(args)).AssertFailure(2, "UsageError");

        Assert.Contains("'/pk'", error, StringComparison.Ordinal);
        Assert.Empty(await other.GetItemQueryIterator<JsonObject>("SELECT * FROM c").ReadAllAsync(Ct));
    }

    [Fact]
    public async Task RewrapDek_MissingDek_IsKeyUnavailableWithExitThree()
    {
        ToolResult run = await RunAsync(["rewrap-dek", .. DekContainer, "--dek-id", "no-such-dek", "--kek-file", fixture.KekFile, "--kek-name", "kek2", "--wrap-algorithm", "AES-KW"]);

        string error = run.AssertFailure(3, "KeyUnavailable");
        Assert.Contains("dekId 'no-such-dek'", error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task RewrapDek_NewKeyFileUnderTheCurrentName_IsRefusedAndTheDekIsUnchanged()
    {
        // One name stands for one key in the application: a new key under the old name could not be told apart.
        string before = (await ListAsync()).AssertSuccess().Lines.Single(l => l.Contains($"\"id\":\"{ToolFixture.Dek2}\"", StringComparison.Ordinal));
        string otherFile = Path.Combine(Path.GetTempPath(), $"other-{Guid.NewGuid():N}.jwk");
        await File.WriteAllTextAsync(otherFile, Jwk(RandomNumberGenerator.GetBytes(32)), Ct);
        try
        {
            ToolResult run = await RunAsync(["rewrap-dek", .. DekContainer, "--dek-id", ToolFixture.Dek2, "--kek-file", fixture.KekFile, "--new-kek-file", otherFile, "--kek-name", ToolFixture.KekName, "--wrap-algorithm", "AES-KW"]);

            string error = run.AssertFailure(2, "UsageError");
            Assert.Contains("needs a name of its own", error, StringComparison.Ordinal);
            Assert.Contains(before, (await ListAsync()).Lines);
        }
        finally
        {
            File.Delete(otherFile);
        }
    }

    // The create landed and the service answered 201, but the body was cut off on its way: the DEK is there and
    // usable, so the run says so (it was reported as an invalid DEK document, exit code 3, and a rerun then met
    // its own DEK as AlreadyExists).
    [Fact]
    public async Task CreateDek_WhoseAnswerIsCutOff_IsConfirmedFromTheStoredDocument()
    {
        string id = "tool-" + Guid.NewGuid().ToString("N");
        FaultInjectingHandler faults = Faulty();
        faults.Script("create", InjectedFault.TruncatedAnswer);

        ToolResult run = (await RunAsync(["create-dek", .. DekContainer, "--dek-id", id, "--kek-file", fixture.KekFile, "--kek-name", ToolFixture.KekName, "--wrap-algorithm", "AES-KW"])).AssertSuccess();

        Assert.Equal(1, faults.Injected[("create", InjectedFault.TruncatedAnswer)]);
        Assert.Equal(ToolFixture.KekName, (string?)SingleDek(run, id)["kek"]!["name"]);
        byte[] cipherText = await fixture.Encryptor.EncryptAsync("4111-1111"u8.ToArray(), id, Algorithm, Ct);
        Assert.Equal("4111-1111"u8.ToArray(), await fixture.Encryptor.DecryptAsync(cipherText, id, Algorithm, Ct));
    }

    [Fact]
    public async Task RewrapDek_WhoseAnswerIsCutOff_IsConfirmedFromTheStoredDocument()
    {
        string id = await CreateDekAsync();
        await WithKeyFileAsync(async kek2File =>
        {
            FaultInjectingHandler faults = Faulty();
            faults.Script("replace", InjectedFault.TruncatedAnswer);

            ToolResult run = (await RunAsync(RewrapArguments(id, kek2File))).AssertSuccess();

            Assert.Equal(1, faults.Injected[("replace", InjectedFault.TruncatedAnswer)]);
            Assert.Equal("kek2", (string?)SingleDek(run, id)["kek"]!["name"]);
        });
    }

    // The rewrap landed but its answer was lost (a 408 after the write): that run cannot know and fails as a service
    // error. Its rerun finds the DEK wrapped under --kek-name by the key in --new-kek-file: done, exit 0, saying so
    // (it was a usage error, exit 2, as if a new key were being put under the current name).
    [Fact]
    public async Task RewrapDek_RerunAfterARewrapWhoseAnswerWasLost_SaysItIsAlreadyDone()
    {
        string id = await CreateDekAsync();
        await WithKeyFileAsync(async kek2File =>
        {
            FaultInjectingHandler faults = Faulty();
            faults.Script("replace", InjectedFault.AppliedThenTimedOut);

            ToolResult lost = await RunAsync(RewrapArguments(id, kek2File));
            Assert.Equal(1, faults.Injected[("replace", InjectedFault.AppliedThenTimedOut)]);
            lost.AssertFailure(1, "ServiceError");
            AccountClient.HttpClientFactory.Value = null;
            string stored = (await ListAsync()).Lines.Single(l => l.Contains($"\"id\":\"{id}\"", StringComparison.Ordinal));
            Assert.Contains("\"name\":\"kek2\"", stored, StringComparison.Ordinal);

            ToolResult rerun = (await RunAsync(RewrapArguments(id, kek2File))).AssertSuccess();

            Assert.StartsWith("already done: ", rerun.Lines[0], StringComparison.Ordinal);
            Assert.Contains("nothing was written", rerun.Lines[0], StringComparison.Ordinal);
            Assert.Equal(stored, rerun.Lines[1]);
            Assert.Equal(2, rerun.Lines.Count);
            Assert.Contains(stored, (await ListAsync()).Lines); // not written again: same modified time
        });
    }

    private string[] RewrapArguments(string id, string kek2File) =>
        ["rewrap-dek", .. DekContainer, "--dek-id", id, "--kek-file", fixture.KekFile, "--new-kek-file", kek2File, "--kek-name", "kek2", "--wrap-algorithm", "AES-KWP"];

    private async Task<string> CreateDekAsync()
    {
        string id = "tool-" + Guid.NewGuid().ToString("N");
        (await RunAsync(["create-dek", .. DekContainer, "--dek-id", id, "--kek-file", fixture.KekFile, "--kek-name", ToolFixture.KekName, "--wrap-algorithm", "AES-KW"])).AssertSuccess();
        return id;
    }

    private static async Task WithKeyFileAsync(Func<string, Task> test)
    {
        string file = Path.Combine(Path.GetTempPath(), $"kek2-{Guid.NewGuid():N}.jwk");
        await File.WriteAllTextAsync(file, Jwk(RandomNumberGenerator.GetBytes(32)), Ct);
        try
        {
            await test(file);
        }
        finally
        {
            File.Delete(file);
            AccountClient.HttpClientFactory.Value = null;
        }
    }

    // The tool's clients in this test's flow go through a fault-injecting hop that faults only what a test scripts:
    // the DEK container's creates (a POST that is not a query) and replaces.
    private static FaultInjectingHandler Faulty()
    {
        var faults = new FaultInjectingHandler(everyNth: int.MaxValue, static request =>
        {
            string path = request.RequestUri!.AbsolutePath;
            return path.Contains("/colls/" + ToolFixture.DekContainer + "/docs", StringComparison.Ordinal) ? (request.Method.Method, path.EndsWith("/docs", StringComparison.Ordinal), request.Headers.Contains("x-ms-documentdb-isquery")) switch
            {
                ("POST", true, false) => "create",
                ("PUT", false, _) => "replace",
                _ => null,
            } : null;
        });
        AccountClient.HttpClientFactory.Value = () => new HttpClient(faults, disposeHandler: false);
        return faults;
    }

    private Task<ToolResult> RunAsync(string[] args) => ToolInProcess.RunAsync(fixture.Endpoint, args, s_runBound, cancellationToken: Ct);

    private Task<ToolResult> ListAsync() => RunAsync(["list-deks", .. DekContainer]);

    private static JsonObject SingleDek(ToolResult run, string id)
    {
        JsonObject line = JsonNode.Parse(run.Lines.Single(l => l.Contains($"\"id\":\"{id}\"", StringComparison.Ordinal)))!.AsObject();
        Assert.DoesNotContain("wrapped", line.ToJsonString(), StringComparison.OrdinalIgnoreCase);
        return line;
    }

    private static string Jwk(byte[] key) => JsonSerializer.Serialize(new Dictionary<string, string>
    {
        ["kty"] = "oct",
        ["k"] = Convert.ToBase64String(key).TrimEnd('=').Replace('+', '-').Replace('/', '_'),
    });
}
