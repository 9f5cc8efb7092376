using System.Text.Json.Nodes;
using Encryption.Custom.Cosmos.Lookups;
using Encryption.Custom.Cosmos.Processing;
using Encryption.Custom.Cosmos.Queries;
using Encryption.Custom.Cosmos.Serialization;
using Encryption.Custom.Keys;
using Encryption.Custom.Processing;
using Encryption.Custom.Tests.Cosmos.TestSupport;
using Encryption.Custom.Tests.TestSupport;
using FsCheck;
using FsCheck.Fluent;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Tests.Cosmos.Lookups;

/// <summary>
/// Issue 33: a deterministic query operand (literal or parameter) and a lookup of an encrypted id or partition key are
/// the very cell both processors store at that path for the same JSON scalar, or every one of them refuses the value.
/// If they drifted, the query or the point read would silently find nothing.
/// </summary>
public sealed class ScalarAgreementPropertyTests
{
    private const string KeyId = "dek";

    private static readonly ContainerEncryptionPolicy s_policy = new(
        KeyId,
        [
            new EncryptionPolicyIncludedPath("/id") { EncryptionType = PathEncryptionType.Deterministic },
            new EncryptionPolicyIncludedPath("/pk") { EncryptionType = PathEncryptionType.Deterministic },
            new EncryptionPolicyIncludedPath("/v") { EncryptionType = PathEncryptionType.Deterministic },
        ])
    { Bind = false };

    private static readonly DataEncryptionKey s_key = TestKeys.Create(TestKeyKind.Protected);
    private static readonly TestEncryptor s_encryptor = new TestEncryptor().Add(KeyId, s_key);
    private static readonly QueryGuard s_guard = new(s_policy, s_encryptor, new NewtonsoftItemSerializer(null));
    private static readonly LookupKeys s_lookups = new(s_policy.Rules, s_encryptor, new PartitionKeyGuard(new FakeContainer(partitionKeyPath: "/pk")));

    [Fact]
    public void GeneratedScalars_OperandsAndLookups_AreTheStoredCells_OrAllRefuse()
    {
        Prop.ForAll(JsonScalar.Arbitrary, scalar =>
        {
            List<string> differences = [.. Differences(scalar)];
            return (differences.Count == 0).Label(string.Join("; ", differences));
        }).Check(Config.QuickThrowOnFailure.WithMaxTest(500));
    }

    [Theory]
    [InlineData("\"\"")]
    [InlineData("\"a\\u0027b\\\\c\\/d\"")]
    [InlineData("-0")]
    [InlineData("-0.0")]
    [InlineData("0.0")]
    [InlineData("1E+2")]
    [InlineData("1e400")]
    [InlineData("1e-400")]
    [InlineData("9223372036854775807")]
    [InlineData("9223372036854775808")]
    [InlineData("-9223372036854775809")]
    [InlineData("298969000000000000000.0")]
    public void Edges_OperandsAndLookups_AreTheStoredCells_OrAllRefuse(string json)
    {
        JsonScalar scalar = json.StartsWith('"')
            ? JsonScalar.FromString(JsonNode.Parse(json)!.GetValue<string>(), escapes: 0)
            : new JsonScalar(json, json.StartsWith('-') ? null : json, new NumberText(json), null);
        Assert.Empty(Differences(scalar));
    }

    [Fact]
    public async Task OrdinaryValues_AreCompared_NotRefusedEverywhere()
    {
        // The agreement above would hold vacuously if every side refused: ordinary values are encrypted by all.
        string? id = Stored(JsonProcessor.Stream, "id", "\"a/b+c\"");
        Assert.NotNull(id);
        Assert.Equal(id, await s_lookups.EncryptIdAsync("a/b+c", TestContext.Current.CancellationToken));
        Assert.Equal(id, Sent("SELECT * FROM c WHERE c.id = 'a/b+c'", null));
        Assert.Equal(new PartitionKey(Stored(JsonProcessor.Newtonsoft, "pk", "\"p\"")).ToString(), s_lookups.Encrypt(new PartitionKey("p")).ToString());
        foreach (string literal in new[] { "42", "1.5", "true", "'s'" })
        {
            string? cell = Stored(JsonProcessor.Newtonsoft, "v", literal.Replace('\'', '"'));
            Assert.NotNull(cell);
            Assert.Equal(cell, Sent($"SELECT * FROM c WHERE c.v = {literal}", null));
        }
    }

    // Every disagreement, named without the value's ciphertext.
    private static IEnumerable<string> Differences(JsonScalar scalar)
    {
        // Known gap (left for issue 33): Newtonsoft.Json's reader turns an escaped lone surrogate into U+FFFD, so the
        // Newtonsoft processor stores that string where the stream processor, the operands and the lookups refuse.
        bool loneSurrogate = scalar.Text is { } value && HasLoneSurrogate(value);
        string? cell = Stored(JsonProcessor.Stream, "v", scalar.Json);
        if (loneSurrogate ? cell is not null : cell != Stored(JsonProcessor.Newtonsoft, "v", scalar.Json))
        {
            yield return "the processors store different cells at /v";
        }

        if (scalar.SqlLiteral is { } literal && Sent($"SELECT * FROM c WHERE c.v = {literal}", null) != cell)
        {
            yield return "the literal operand differs from the stored cell at /v";
        }

        if (Sent("SELECT * FROM c WHERE c.v = @p", Parameter(scalar)) != cell)
        {
            yield return "the parameter operand differs from the stored cell at /v";
        }

        if (scalar.Text is not { } text)
        {
            yield break;
        }

        // Strings: the id and the partition key, looked up and compared in queries.
        string? id = Stored(JsonProcessor.Stream, "id", scalar.Json);
        string? pk = Stored(JsonProcessor.Stream, "pk", scalar.Json);
        if (!loneSurrogate && (id != Stored(JsonProcessor.Newtonsoft, "id", scalar.Json) || pk != Stored(JsonProcessor.Newtonsoft, "pk", scalar.Json)))
        {
            yield return "the processors store different cells at /id or /pk";
        }

        if (Refused(() => s_lookups.EncryptIdAsync(text, CancellationToken.None).AsTask().GetAwaiter().GetResult()) != id)
        {
            yield return "the id lookup differs from the stored id";
        }

        if (Refused(() => s_lookups.Encrypt(new PartitionKey(text)).ToString()) != (pk is null ? null : new PartitionKey(pk).ToString()))
        {
            yield return "the partition key lookup differs from the stored key";
        }

        if (Sent("SELECT * FROM c WHERE c.id = @p", text) != id || Sent($"SELECT * FROM c WHERE c.id = {scalar.SqlLiteral}", null) != id)
        {
            yield return "an operand of c.id differs from the stored id";
        }
    }

    // The cell at the property in a document that holds the value there (and "x" in the other key properties), or null when the writer refuses it.
    private static string? Stored(JsonProcessor processor, string property, string valueJson)
    {
        string document = "{" + string.Join(",", new[] { "id", "pk", "v" }.Select(name => $"\"{name}\":{(name == property ? valueJson : "\"x\"")}")) + "}";
        return Refused(() =>
        {
            byte[] written = Processors.Create(processor).Encrypt(document, s_key, s_policy.CreateWriteOptions());
            return (string?)JsonNode.Parse(written)![property];
        });
    }

    // The ciphertext the guard sends for the query's one operand, or null when it refuses it.
    private static string? Sent(string sql, object? parameter)
    {
        var query = new QueryDefinition(sql);
        if (parameter is not null)
        {
            query = query.WithParameter("@p", parameter);
        }

        return Refused(() =>
        {
            QueryDefinition sent = s_guard.Check(query);
            return (string)Assert.Single(sent.GetQueryParameters(), p => p.Name.StartsWith("@__enc", StringComparison.Ordinal)).Value;
        });
    }

    private static bool HasLoneSurrogate(string text)
    {
        for (int i = 0; i < text.Length; i++)
        {
            if (char.IsHighSurrogate(text[i]) && i + 1 < text.Length && char.IsLowSurrogate(text[i + 1]))
            {
                i++;
            }
            else if (char.IsSurrogate(text[i]))
            {
                return true;
            }
        }

        return false;
    }

    private static object Parameter(JsonScalar scalar) => scalar.Parameter is NumberText number ? number.ToStream() : scalar.Parameter;

    private static string? Refused(Func<string?> action)
    {
        try
        {
            return action();
        }
        catch (EncryptionException)
        {
            return null;
        }
    }
}
