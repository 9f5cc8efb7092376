using Encryption.Custom.Cosmos.Patch;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.WireFormat;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Tests.Cosmos.Patch;

/// <summary>
/// The classification of patch operations against a format 101 policy, by example: the four places a path can be
/// (selected, ancestor, inside a cell, unrelated), and every refusal made before anything is read or sent, each naming
/// the path and why, never the value.
/// </summary>
public sealed class PatchClassifierTests
{
    private const string Dek = "dek1";

    private static PatchSelectors Selectors(bool bind = false)
    {
        PolicyRuleSet rules = new ContainerEncryptionPolicy(Dek, ["/ssn", "/address/city", "/cards/[]/number", "/tags/[]"]) { Bind = bind }.Rules;
        if (bind)
        {
            rules = rules.BindTo(new BindingTarget("db/c", ["/pk"]));
        }

        return PatchSelectors.For(rules.CreateWriteOptions().GetPlan());
    }

    public static TheoryData<string, string, string?> Paths => new()
    {
        { "/address/city", nameof(PatchPathKind.Selected), "/address/city" },
        { "/cards/0/number", nameof(PatchPathKind.Selected), "/cards/[]/number" },
        { "/cards/-/number", nameof(PatchPathKind.Selected), "/cards/[]/number" },
        { "/tags/3", nameof(PatchPathKind.Selected), "/tags/[]" },
        { "/ssn", nameof(PatchPathKind.Selected), "/ssn" },
        { "/address", nameof(PatchPathKind.Ancestor), null },
        { "/cards", nameof(PatchPathKind.Ancestor), null },
        { "/cards/-", nameof(PatchPathKind.Ancestor), null },
        { "/cards/2", nameof(PatchPathKind.Ancestor), null },
        { "/address/city/x", nameof(PatchPathKind.InsideCell), "/address/city" },
        { "/cards/0/number/0", nameof(PatchPathKind.InsideCell), "/cards/[]/number" },
        { "/ssn/first", nameof(PatchPathKind.InsideCell), "/ssn" },
        { "/tags/0/x", nameof(PatchPathKind.InsideCell), "/tags/[]" },
        { "/Address/city", nameof(PatchPathKind.CaseVariant), "/address/city" },
        { "/address/City", nameof(PatchPathKind.CaseVariant), "/address/city" },
        { "/cards/0/Number", nameof(PatchPathKind.CaseVariant), "/cards/[]/number" },
        { "/SSN", nameof(PatchPathKind.CaseVariant), "/ssn" },
        { "/address/zip", nameof(PatchPathKind.Unrelated), null },
        { "/cards/0/expiry", nameof(PatchPathKind.Unrelated), null },
        { "/cards/x", nameof(PatchPathKind.Unrelated), null },
        { "/name", nameof(PatchPathKind.Unrelated), null },
        { "/cityaddress", nameof(PatchPathKind.Unrelated), null },
        { "/address~1city", nameof(PatchPathKind.Unrelated), null },
    };

    [Theory]
    [MemberData(nameof(Paths))]
    public void Path_IsClassified(string path, string kind, string? selector)
    {
        PatchSelectors selectors = Selectors();
        Assert.True(RulePath.TryParse(path, out RulePath? parsed, out _));

        PatchPathClass actual = selectors.Classify(parsed!.Segments);

        Assert.Equal(kind, actual.Kind.ToString());
        if (selector is not null)
        {
            Assert.Equal(selector, selectors.Plan.GetPath(actual.RuleIndex));
        }
    }

    public static TheoryData<string, string> Refused => new()
    {
        { "set /address/city/x", "inside the value selected by '/address/city'" },
        { "remove /cards/0/number/0", "inside the value selected by '/cards/[]/number'" },
        { "move-from /ssn/a", "inside the value selected by '/ssn'" },
        { "move-to /address/city/a", "inside the value selected by '/address/city'" },
        { "set /Address/city", "only when case is ignored" },
        { "set /cards/1/NUMBER", "only when case is ignored" },
        { "increment /cards/0/number", "increments" },
        { "increment /ssn", "increments" },
        { "set /_ei/_ep", "'_ei'" },
        { "set /_ex", "anchor" },
        { "set /cards/[]/number", "'[]'" },
        { "set /cards//number", "empty segment" },
    };

    [Theory]
    [MemberData(nameof(Refused))]
    public void Operation_IsRefusedBeforeAnythingIsSent(string operation, string why)
    {
        EncryptionException error = Assert.Throws<EncryptionException>(() => PatchClassifier.Classify([Operation(operation)], Selectors()));

        Assert.Equal(EncryptionErrorKind.InvalidOptions, error.Kind);
        Assert.Contains(why, error.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("PLAIN", error.ToString(), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("set /id")]
    [InlineData("replace /id")]
    [InlineData("remove /id")]
    [InlineData("set /pk")]
    [InlineData("remove /pk")]
    [InlineData("increment /pk")]
    [InlineData("move-from /id")]
    [InlineData("move-to /pk")]
    public void ChangingTheIdOrPartitionKey_OfABoundDocument_IsRefusedUpFront(string operation)
    {
        EncryptionException error = Assert.Throws<EncryptionException>(() => PatchClassifier.Classify([Operation(operation)], Selectors(bind: true)));

        Assert.Equal(EncryptionErrorKind.InvalidOptions, error.Kind);
        Assert.Contains("bound", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("set /id")]
    [InlineData("set /pk")]
    [InlineData("set /ID")]
    public void IdAndPartitionKey_WithoutBinding_OrUnderAnotherName_AreUnrelated(string operation)
    {
        PatchSelectors selectors = operation == "set /ID" ? Selectors(bind: true) : Selectors();

        ClassifiedOperation classified = Assert.Single(PatchClassifier.Classify([Operation(operation)], selectors));

        Assert.Equal(PatchPathKind.Unrelated, classified.Target.Kind);
    }

    [Theory]
    [InlineData("remove /address/city")]
    [InlineData("remove /cards")]
    [InlineData("increment /cards/0")]
    [InlineData("move-from /name")]
    public void RemovesAndPlainMoves_WriteNothingEncrypted(string operation)
    {
        ClassifiedOperation classified = Assert.Single(PatchClassifier.Classify([Operation(operation)], Selectors()));

        Assert.False(classified.WritesEncryptedValue);
        Assert.False(classified.MovesEncryptedValue);
    }

    [Theory]
    [InlineData("move-from /address/city")]
    [InlineData("move-to /cards/1")]
    [InlineData("move-to /address")]
    public void MovesOfEncryptedValues_AreMarkedForTheReplace(string operation)
    {
        ClassifiedOperation classified = Assert.Single(PatchClassifier.Classify([Operation(operation)], Selectors()));

        Assert.True(classified.MovesEncryptedValue);
    }

    private static PatchOperation Operation(string text)
    {
        string[] parts = text.Split(' ');
        return parts[0] switch
        {
            "replace" => PatchOperation.Replace(parts[1], "PLAIN"),
            "remove" => PatchOperation.Remove(parts[1]),
            "increment" => PatchOperation.Increment(parts[1], 1),
            "move-from" => PatchOperation.Move(parts[1], "/elsewhere"),
            "move-to" => PatchOperation.Move("/elsewhere", parts[1]),
            _ => PatchOperation.Set(parts[1], "PLAIN"),
        };
    }
}
