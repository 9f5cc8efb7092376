using System.Text;
using Encryption.Custom.Json.Inspection;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Keys;
using Encryption.Custom.Processing;
using Encryption.Custom.Tests.TestSupport;
using FsCheck;
using FsCheck.Fluent;

namespace Encryption.Custom.Tests.Json.Inspection;

/// <summary>
/// The two inspectors (stream and Newtonsoft) give the same answer over generated documents: plaintext ones with
/// policy names, case variants and cell-shaped strings; documents either processor encrypted in format 3, 101 with
/// selectors, and 101 bound; and those documents damaged (metadata dropped, format or feature changed, a listed value
/// replaced). Judged against each policy, with and without the key, so migration decides the same whichever
/// processor its options choose.
/// </summary>
public sealed class DocumentInspectorEquivalenceTests : IDisposable
{
    private const string Dek = "dek1";

    private readonly DataEncryptionKey _key = DataEncryptionKey.Generate(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized);
    private readonly PolicyRuleSet[] _policies;

    public DocumentInspectorEquivalenceTests()
    {
        var target = new BindingTarget("db/c", ["/pk"]);
        _policies =
        [
            new ContainerEncryptionPolicy(Dek, [new EncryptionPolicyIncludedPath("/ssn") { EncryptionType = PathEncryptionType.Deterministic }, new EncryptionPolicyIncludedPath("/card")]).Rules,
            new ContainerEncryptionPolicy(Dek, ["/address/city", "/cards/[]/number", "/ssn"]).Rules,
            new ContainerEncryptionPolicy(Dek, [new EncryptionPolicyIncludedPath("/ssn") { EncryptionType = PathEncryptionType.Deterministic }, new EncryptionPolicyIncludedPath("/card"), new EncryptionPolicyIncludedPath("/cards/[]/number")]) { Bind = true }.Rules.BindTo(target),
            new ContainerEncryptionPolicy(Dek, ["/card"]) { Bind = true }.Rules.BindTo(target),
        ];
    }

    public void Dispose() => _key.Dispose();

    [Fact]
    public void Inspectors_GeneratedDocuments_GiveTheSameAnswer()
    {
        Gen<string> plain = Gen.Elements("\"plain\"", "1", "true", "null", "{\"x\":1}", "[1]");
        Gen<string> scalar = Gen.Elements("\"plain\"", "1", "true", "null");
        Gen<string> address = from city in plain from zip in plain select $"{{\"city\":{city},\"zip\":{zip}}}";
        Gen<string> cards = from numbers in Gen.ArrayOf(plain) select $"[{string.Join(',', numbers.Select(n => $"{{\"number\":{n},\"expiry\":1}}"))}]";
        Gen<string[]> properties = Gen.ArrayOf(Gen.OneOf(
            from v in scalar select $"\"ssn\":{v}",
            from v in plain select $"\"card\":{v}",
            from v in plain select $"\"SSN\":{v}",
            from v in plain select $"\"other\":{v}",
            from v in address select $"\"address\":{v}",
            from v in cards select $"\"cards\":{v}"));
        Gen<Case> cases =
            from props in properties
            from writer in Gen.Elements(-1, 0, 1, 2, 3)
            from processor in Gen.Elements(JsonProcessor.Stream, JsonProcessor.Newtonsoft)
            from damage in Gen.Elements(Enum.GetValues<Damage>())
            from judge in Gen.Elements(-1, 0, 1, 2, 3)
            from withKey in Gen.Elements(true, false)
            select new Case(props.DistinctBy(p => p[..p.IndexOf(':', StringComparison.Ordinal)]).ToArray(), writer, processor, damage, judge, withKey);

        var seen = new HashSet<string>();
        Prop.ForAll(cases.ToArbitrary(), c =>
        {
            byte[] document = Build(c);
            var request = new InspectionRequest(
                EncryptionProcessorOptions.DefaultMaxDepth,
                c.Judge < 0 ? null : _policies[c.Judge],
                c.WithKey ? id => id == Dek ? _key : null : null);
            DocumentInspection stream = StreamDocumentInspector.Instance.Inspect(document, request);
            DocumentInspection newtonsoft = NewtonsoftDocumentInspector.Instance.Inspect(document, request);
            seen.UnionWith(Category(stream));
            return (Describe(stream) == Describe(newtonsoft)).Label($"{Encoding.UTF8.GetString(document)}\nstream:     {Describe(stream)}\nnewtonsoft: {Describe(newtonsoft)}");
        }).Check(Config.QuickThrowOnFailure.WithMaxTest(400));

        // The generator reaches every kind of answer (else the comparison above could pass vacuously).
        Assert.Superset(new HashSet<string>(["Plaintext", "Unreadable", "ef=3", "ef=101", "bound", "Deterministic", "Randomized", "Bound", "unlisted-cell", "unlisted-plain"]), seen);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Inspect_WithTheKey_TellsDeterministicRandomizedAndBoundCells(JsonProcessor kind)
    {
        DocumentInspector inspector = DocumentInspector.For(kind);
        byte[] bound = EncryptionProcessor.Create(kind).Encrypt("""{"id":"a","pk":"p","ssn":"1","card":"2","cards":[{"number":"3"}]}""", _key, _policies[2].CreateWriteOptions());
        DocumentInspection inspection = inspector.Inspect(bound, new InspectionRequest(64, Keys: _ => _key));

        Assert.Equal((InspectedState.Encrypted, 101, true), (inspection.State, inspection.FormatVersion, inspection.Bound));
        Assert.Equal(
            [new InspectedPath("/ssn", false, InspectedCellType.Deterministic), new InspectedPath("/card", false, InspectedCellType.Bound), new InspectedPath("/cards/[]/number", true, InspectedCellType.Unchecked)],
            inspection.Paths);

        byte[] unbound = EncryptionProcessor.Create(kind).Encrypt("""{"id":"a","ssn":"1"}""", _key, _policies[0].CreateWriteOptions());
        Assert.Equal([new InspectedPath("/ssn", false, InspectedCellType.Deterministic)], inspector.Inspect(unbound, new InspectionRequest(64, Keys: _ => _key)).Paths);
        Assert.Equal([new InspectedPath("/ssn", false, InspectedCellType.Unchecked)], inspector.Inspect(unbound, new InspectionRequest(64)).Paths);
        Assert.Equal(3, inspector.Inspect(unbound, new InspectionRequest(64)).FormatVersion);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Inspect_UnknownFormatOrFeature_IsUnreadableWithTheReadersError(JsonProcessor kind)
    {
        DocumentInspector inspector = DocumentInspector.For(kind);
        DocumentInspection future = inspector.Inspect("""{"id":"a","_ei":{"_ef":7,"_en":"k","_ea":"a","_ep":[]}}"""u8, new InspectionRequest(64));
        DocumentInspection malformed = inspector.Inspect("""{"id":"a","""u8, new InspectionRequest(64));

        Assert.Equal((InspectedState.Unreadable, EncryptionErrorKind.UnsupportedFormat), (future.State, future.Error!.Kind));
        Assert.Equal(InspectedState.Unreadable, malformed.State);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Inspect_PlaintextAtAPolicyPosition_IsReportedUnlisted(JsonProcessor kind)
    {
        DocumentInspection inspection = DocumentInspector.For(kind).Inspect("""{"id":"a","cards":[{"number":"4111"}]}"""u8, new InspectionRequest(64, _policies[1]));

        Assert.Equal((InspectedState.Plaintext, "a"), (inspection.State, inspection.Id));
        Assert.Equal(new UnlistedValue("/cards/[]/number", false, null), inspection.Unlisted);
    }

    private byte[] Build(Case c)
    {
        // A case variant of a policy path is refused by writers: only plaintext documents carry one.
        string plain = "{\"id\":\"d\",\"pk\":\"p\"" + string.Concat(c.Properties.Where(p => c.Writer < 0 || !p.StartsWith("\"SSN\"", StringComparison.Ordinal)).Select(p => "," + p)) + "}";
        if (c.Writer < 0)
        {
            return Encoding.UTF8.GetBytes(plain);
        }

        string encrypted;
        try
        {
            encrypted = Encoding.UTF8.GetString(EncryptionProcessor.Create(c.Processor).Encrypt(plain, _key, _policies[c.Writer].CreateWriteOptions()));
        }
        catch (EncryptionException)
        {
            // A shape the policy refuses to write (a case variant, a value a deterministic path cannot hold): inspect it plain.
            return Encoding.UTF8.GetBytes(plain);
        }

        return Encoding.UTF8.GetBytes(c.Damage switch
        {
            Damage.DropEnvelope => DropMember(encrypted, "_ei"),
            Damage.UnknownFormat => encrypted.Replace("\"_ef\":3", "\"_ef\":4", StringComparison.Ordinal).Replace("\"_ef\":101", "\"_ef\":102", StringComparison.Ordinal),
            Damage.UnknownFeature => encrypted.Replace("\"crit\":[", "\"crit\":[\"commit\",", StringComparison.Ordinal),
            Damage.ListedValueNotString => encrypted.Replace("\"card\":\"", "\"card\":7,\"x\":\"", StringComparison.Ordinal),
            Damage.DropAnchor => DropMember(encrypted, "_ex"),
            Damage.UnlistCard => encrypted.Replace(",\"/card\"", "", StringComparison.Ordinal).Replace("\"/card\",", "", StringComparison.Ordinal),
            _ => encrypted,
        });
    }

    // Removes "name":<value> from the top level, where the writers put these members (a string or an object without braces inside values).
    private static string DropMember(string json, string name)
    {
        int start = json.IndexOf($"\"{name}\":", StringComparison.Ordinal);
        if (start < 0)
        {
            return json;
        }

        int end = start + name.Length + 3;
        end = json[end] == '"' ? json.IndexOf('"', end + 1) + 1 : FindClose(json, end);
        string before = json[..start].TrimEnd(',');
        string after = json[end..];
        return before.EndsWith('{') ? before + after.TrimStart(',') : before + after;
    }

    private static int FindClose(string json, int open)
    {
        int depth = 0;
        for (int i = open; ; i++)
        {
            depth += json[i] == '{' ? 1 : json[i] == '}' ? -1 : 0;
            if (depth == 0)
            {
                return i + 1;
            }
        }
    }

    private static IEnumerable<string> Category(DocumentInspection i) =>
        new[]
        {
            i.State.ToString(),
            i.Encrypted ? $"ef={i.FormatVersion}" : "",
            i.Bound ? "bound" : "",
            i.Unlisted is { } u ? (u.CellShaped ? "unlisted-cell" : "unlisted-plain") : "",
        }.Concat(i.Paths.Select(p => p.Type.ToString())).Where(x => x.Length > 0);

    private static string Describe(DocumentInspection i) =>
        $"{i.State} ef={i.FormatVersion} en={i.KeyId} ea={i.Algorithm} bound={i.Bound} id={i.Id} error={i.Error?.Kind} typeError={i.TypeError?.Kind} "
        + $"paths=[{string.Join(",", i.Paths)}] unlisted={i.Unlisted?.Path}/{i.Unlisted?.CellShaped}/{(i.Unlisted?.CellBase64 is { } b ? Encoding.UTF8.GetString(b) : "-")}";

    public enum Damage
    {
        None,
        DropEnvelope,
        UnknownFormat,
        UnknownFeature,
        ListedValueNotString,
        DropAnchor,
        UnlistCard,
    }

    public sealed record Case(string[] Properties, int Writer, JsonProcessor Processor, Damage Damage, int Judge, bool WithKey);
}
