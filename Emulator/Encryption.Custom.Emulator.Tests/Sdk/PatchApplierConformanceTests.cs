using System.Globalization;
using Encryption.Custom.Cosmos.Patch;
using Encryption.Custom.Cosmos.Serialization;
using FsCheck;
using FsCheck.Fluent;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Emulator.Tests.Sdk;

/// <summary>
/// The conditional replace applies a patch the service cannot be sent to the decrypted document in process
/// (<see cref="PatchApplier"/>, docs/policy.md "Patch"). Its semantics must be the service's: generated documents and
/// patches of one to three operations (add, set, replace, remove, increment, move; existing and missing properties,
/// array indexes inside, at and past the end, "-", type mismatches) are applied by the endpoint to a plaintext document
/// and by <see cref="PatchApplier"/> to the same document: both refuse, or both give the same document. Where they
/// first disagreed, Cosmos DB's documented behaviour decided which one changed: set on an array index at the length
/// (refused: set updates "a valid array index"), a move onto an array index (inserts: move "adds" at the target), an
/// increment of an array element (applied) or of null (refused: not a number), a write under a missing parent
/// (refused; the endpoint wrote into the grandparent, compat/patch-checks.mjs).
/// </summary>
public sealed class PatchApplierConformanceTests(CosmosDatabaseFixture fixture) : IClassFixture<CosmosDatabaseFixture>
{
    private static readonly string[] s_paths =
    [
        "/n", "/f", "/s", "/o", "/o/x", "/o/new", "/o/y/z", "/arr", "/arr/0", "/arr/2", "/arr/3", "/arr/7", "/arr/-",
        "/list/1/a", "/list/0", "/missing", "/missing/x", "/s/x", "/arr/x", "/n/x",
    ];

    private static readonly CosmosSerializer s_serializer = new NewtonsoftItemSerializer(null);

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private static Gen<JToken> Values() => Gen.OneOf(
        Gen.Choose(-50, 50).Select(i => (JToken)new JValue(i)),
        Gen.Choose(-50, 50).Select(i => (JToken)new JValue(i + 0.5)),
        Gen.Elements("a", "bc", string.Empty).Select(s => (JToken)new JValue(s)),
        Gen.Constant((JToken)JValue.CreateNull()),
        Gen.Constant((JToken)new JObject { ["k"] = 1 }),
        Gen.Constant((JToken)new JArray(1, 2)));

    private static Gen<PatchOperation> Operations() =>
        from type in Gen.Choose(0, 5)
        from path in Gen.Elements(s_paths)
        from source in Gen.Elements(s_paths)
        from value in Values()
        from integer in Gen.Elements(true, false)
        from step in Gen.Choose(-5, 5)
        where type != 5 || source != path // a move onto itself: RFC 6902 allows it, the endpoint refuses it, Cosmos DB does not document it
        select type switch
        {
            0 => PatchOperation.Add(path, value),
            1 => PatchOperation.Set(path, value),
            2 => PatchOperation.Replace(path, value),
            3 => PatchOperation.Remove(path),
            4 => integer ? PatchOperation.Increment(path, step) : PatchOperation.Increment(path, step + 0.25),
            _ => PatchOperation.Move(source, path),
        };

    private static JObject Document(string id)
    {
        JObject document = JObject.Parse("""{"pk":"p","n":3,"f":1.5,"s":"text","o":{"x":1,"y":{"z":2}},"arr":[10,20,30],"list":[{"a":1},{"a":2}]}""");
        document.AddFirst(new JProperty("id", id));
        return document;
    }

    [Fact]
    public async Task GeneratedPatches_TheInProcessApplierAgreesWithTheEndpoint()
    {
        Container container = await fixture.GetSharedContainerAsync(Ct);
        int applied = 0;
        int refused = 0;
        int next = 0;
        Gen<PatchOperation[]> patches =
            from count in Gen.Choose(1, 3)
            from operations in Gen.ArrayOf(Operations(), count)
            select operations;
        Prop.ForAll(patches.ToArbitrary(), operations =>
        {
            string id = "patch-" + Interlocked.Increment(ref next).ToString(CultureInfo.InvariantCulture);
            JObject document = Document(id);
            container.CreateItemAsync(document, new PartitionKey("p"), cancellationToken: Ct).GetAwaiter().GetResult();
            using ResponseMessage response = container.PatchItemStreamAsync(id, new PartitionKey("p"), operations, cancellationToken: Ct).GetAwaiter().GetResult();
            JObject stored = container.ReadItemAsync<JObject>(id, new PartitionKey("p"), cancellationToken: Ct).GetAwaiter().GetResult().Resource;

            JObject local = Document(id);
            string? error = PatchApplier.TryApply(local, operations, s_serializer, 64);
            string described = string.Join("; ", operations.Select(o => $"{o.OperationType} {(o.OperationType == PatchOperationType.Move ? o.From + " -> " : string.Empty)}{o.Path}"));
            Assert.True(response.IsSuccessStatusCode == (error is null), $"{described}: endpoint {(int)response.StatusCode}, applier {error ?? "applied"}");
            if (error is null)
            {
                applied++;
                Assert.True(JToken.DeepEquals(WithoutSystemProperties(stored), local), $"{described}: endpoint {WithoutSystemProperties(stored).ToString(Newtonsoft.Json.Formatting.None)}, applier {local.ToString(Newtonsoft.Json.Formatting.None)}");
            }
            else
            {
                refused++;
                Assert.True(JToken.DeepEquals(WithoutSystemProperties(stored), Document(id)), $"{described}: a refused patch changed the document");
            }
        }).Check(Config.QuickThrowOnFailure.WithMaxTest(150));
        Assert.True(applied >= 20 && refused >= 20, $"applied {applied}, refused {refused}: the generator no longer exercises both outcomes");
    }

    private static JObject WithoutSystemProperties(JObject document)
    {
        var copy = (JObject)document.DeepClone();
        foreach (string name in new[] { "_rid", "_self", "_etag", "_attachments", "_ts", "_lsn" })
        {
            copy.Remove(name);
        }

        return copy;
    }
}
