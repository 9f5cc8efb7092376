using Encryption.Custom.Json;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Keys;
using Encryption.Custom.Processing;
using Encryption.Custom.Tests.TestSupport;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Tests.Cosmos.Policy;

/// <summary>
/// ContainerEncryptionPolicy.Bind defaults to automatic: a policy with a nested selector binds (it writes format 101
/// anyway), a policy of top-level paths does not (its documents stay format 3, readable by Microsoft's package), and
/// an explicit value wins either way. Checked on the compiled rules and on what both processors write.
/// </summary>
public sealed class BindingDefaultTests : IDisposable
{
    private const string Dek = "dek1";
    private const string Document = """{"id":"alice","pk":"tenant-1","ssn":"SECRET-1","address":{"city":"SECRET-Paris","zip":"75001"}}""";

    private readonly DataEncryptionKey _key = DataEncryptionKey.Generate(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized);

    public void Dispose() => _key.Dispose();

    public static TheoryData<string[], bool?, bool> Cases() => new()
    {
        { ["/ssn"], null, false },
        { ["/ssn", "/address"], null, false },
        { ["/ssn", "/address/city"], null, true },
        { ["/cards/[]/number", "/ssn"], null, true },
        { ["/ssn", "/address/city"], false, false },
        { ["/ssn"], true, true },
        { ["/ssn", "/address/city"], true, true },
    };

    [Fact]
    public void Bind_IsAutomaticByDefault()
    {
        Assert.Null(new ContainerEncryptionPolicy(Dek, ["/ssn"]).Bind);
        Assert.Null(new ContainerEncryptionPolicy(Dek, ["/address/city"]).Bind);
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public void CompiledRules_BindWhenAskedOrWhenAPathIsNested(string[] paths, bool? bind, bool binds)
    {
        var policy = new ContainerEncryptionPolicy(Dek, paths) { Bind = bind };

        Assert.Equal(binds, policy.Rules.Binds);
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public void BothProcessors_WriteTheFormatTheDefaultChooses(string[] paths, bool? bind, bool binds)
    {
        var policy = new ContainerEncryptionPolicy(Dek, paths) { Bind = bind };
        PolicyRuleSet rules = policy.Rules.BindTo(new BindingTarget("db/customers", ["/pk"]));
        bool nested = paths.Any(p => p.Count(c => c == '/') > 1);
        foreach (JsonProcessor kind in new[] { JsonProcessor.Stream, JsonProcessor.Newtonsoft })
        {
            JObject stored = JObject.Parse(EncryptionProcessor.Create(kind).Encrypt(Document, _key, rules.CreateWriteOptions()).Utf8());
            JToken envelope = stored["_ei"]!;
            if (!binds && !nested)
            {
                Assert.Equal(3, (int)envelope["_ef"]!);
                Assert.Null(envelope["_ev"]);
                continue;
            }

            Assert.Equal(101, (int)envelope["_ef"]!);
            string[] crit = [.. envelope["_ev"]!["crit"]!.Select(f => (string)f!)];
            Assert.Equal(binds, crit.Contains("bind"));
            Assert.Equal(nested, crit.Contains("sel"));
            Assert.Equal(binds ? 0x02 : 0x01, Convert.FromBase64String((string)stored["ssn"]!)[1]);
        }
    }
}
