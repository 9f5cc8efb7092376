using System.Reflection;
using System.Runtime.CompilerServices;
using Encryption.Custom.Processing;

namespace Encryption.Custom.Tests.Architecture;

/// <summary>
/// No method or constructor of the library takes <see cref="MaxParameters"/> or more parameters: state that travels
/// together becomes a type (a ref struct where it must). The ones that still do are listed by name, so the count can
/// only go down: a new one fails, and so does a listed one that no longer exists (remove it from the list).
/// </summary>
public sealed class ParameterCountTests
{
    private const int MaxParameters = 8;

    /// <summary>
    /// Methods still over the limit ("Type.Method", overloads together), 26 names when the test was written
    /// (2026-11-28), 11 once Json/'s went but one, 10 once that one went too, 1 once the rest took the state that travels together as types
    /// (issue 33: a survey's <c>SurveyRequest</c>, verification's <c>UnexplainedSearch</c>, the in-place
    /// <c>MigratedContainer</c>, <c>PatchCrypto</c>, <c>ItemWriteRequest</c>, <c>PatchRequest</c>, <c>SqlOffsetLimit</c>).
    /// The goal is at most 6 and none in Json/. Public result types are not counted (a record's constructor is its
    /// shape), nor source-generated log messages (one parameter per placeholder). The one left is of a log message
    /// too: the logging generator's state for a message of more than 6 placeholders (EncryptionLog.MigrationProgress),
    /// whose constructor takes one parameter per placeholder as the message does.
    /// </summary>
    private static readonly HashSet<string> s_known = new(StringComparer.Ordinal)
    {
        "EncryptionLog.ctor",
    };

    /// <summary>
    /// Json/ (issue 33) keeps none: its per-document state travels as types (the stream processor's
    /// <c>DocumentEncryption</c>, <c>CellTarget</c>, <c>DecryptionOutput</c>, <c>CellCheck</c>), so the hot path's
    /// signatures stay short. A Json method added to the list above still fails here.
    /// </summary>
    private static readonly HashSet<string> s_knownInJson = new(StringComparer.Ordinal);

    [Fact]
    public void NoNewMethod_TakesEightOrMoreParameters()
    {
        SortedSet<string> found = [.. OverTheLimit().Select(m => m.Name)];

        string[] unknown = [.. found.Except(s_known)];
        Assert.True(unknown.Length == 0, $"New methods with {MaxParameters} or more parameters (make a type of what travels together): {string.Join("; ", unknown)}");
        string[] stale = [.. s_known.Except(found)];
        Assert.True(stale.Length == 0, $"Listed but no longer over the limit (remove them from the list): {string.Join("; ", stale)}");
    }

    [Fact]
    public void NoMethodInJson_TakesEightOrMoreParameters()
    {
        // By folder: every type of Encryption.Custom.Json and its sub-namespaces, and the public entry points at Json's
        // root that live in Encryption.Custom and .Processing.
        SortedSet<string> found = [.. OverTheLimit().Where(m => LibraryLayers.Of(m.Owner) == Layer.Json).Select(m => m.Name)];

        string[] unknown = [.. found.Except(s_knownInJson)];
        Assert.True(unknown.Length == 0, $"Methods in Json/ with {MaxParameters} or more parameters (issue 33: none in Json/): {string.Join("; ", unknown)}");
        string[] stale = [.. s_knownInJson.Except(found)];
        Assert.True(stale.Length == 0, $"Listed but no longer over the limit (remove them from the list): {string.Join("; ", stale)}");
        Assert.True(s_knownInJson.IsSubsetOf(s_known), "every Json entry is in the library-wide list too");
    }

    // Each method or constructor with MaxParameters or more, named "Type.Method" by its outermost type.
    private static IEnumerable<(string Name, Type Owner)> OverTheLimit()
    {
        foreach (MethodBase method in LibraryMethods())
        {
            if (method.GetParameters().Length >= MaxParameters)
            {
                Type owner = Outermost(method.DeclaringType!);
                yield return ($"{owner.Name}.{(method is ConstructorInfo ? "ctor" : method.Name)}", owner);
            }
        }
    }

    private static IEnumerable<MethodBase> LibraryMethods()
    {
        const BindingFlags declared = BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Instance | BindingFlags.Static | BindingFlags.DeclaredOnly;
        foreach (Type type in typeof(EncryptionProcessor).Assembly.GetTypes())
        {
            if (LibraryLayers.Of(type) is null || IsPublicResultType(type))
            {
                continue;
            }

            foreach (MethodBase method in type.GetMethods(declared).Cast<MethodBase>().Concat(type.GetConstructors(declared)))
            {
                if (!method.IsDefined(typeof(CompilerGeneratedAttribute)) && !IsLogMessage(method))
                {
                    yield return method;
                }
            }
        }
    }

    // A public type whose constructor is its shape (a result or progress record the user reads).
    private static bool IsPublicResultType(Type type) =>
        type.IsPublic && type.GetProperties().Length > 0 && type.GetMethods(BindingFlags.Public | BindingFlags.Instance | BindingFlags.DeclaredOnly).All(m => m.IsSpecialName || m.Name is "ToString" or "Equals" or "GetHashCode" or "PrintMembers" or "Deconstruct" or "<Clone>$");

    private static bool IsLogMessage(MethodBase method) =>
        method.CustomAttributes.Any(a => a.AttributeType.FullName == "Microsoft.Extensions.Logging.LoggerMessageAttribute");

    private static Type Outermost(Type type)
    {
        while (type.DeclaringType is { } outer)
        {
            type = outer;
        }

        return type;
    }
}
