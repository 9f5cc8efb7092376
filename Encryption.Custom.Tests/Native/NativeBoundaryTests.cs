using System.Reflection;
using System.Text.RegularExpressions;
using Encryption.Custom.Tests.TestSupport;

namespace Encryption.Custom.Tests.Native;

/// <summary>
/// The library's unsafe surface (P/Invoke, pointers, native allocation) lives only in <c>Encryption.Custom/Native/</c>,
/// so it can be reviewed in one place (docs/architecture.md). Checked twice: in the compiled assembly, and in the
/// sources for what compiles away (an <c>unsafe</c> block, <c>Marshal</c> or <c>NativeMemory</c> calls).
/// </summary>
public sealed partial class NativeBoundaryTests
{
    private const string NativeNamespace = "Encryption.Custom.Native";

    [Fact]
    public void CompiledLibrary_PInvokesAndPointerSignatures_OnlyInTheNativeNamespace()
    {
        List<string> outside = [];
        foreach (Type type in typeof(DataEncryptionKey).Assembly.GetTypes())
        {
            if (type.Namespace is not { } ns || !ns.StartsWith("Encryption.Custom", StringComparison.Ordinal) || InNative(ns))
            {
                continue;
            }

            const BindingFlags All = BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Instance | BindingFlags.Static | BindingFlags.DeclaredOnly;
            foreach (FieldInfo field in type.GetFields(All).Where(f => f.FieldType.IsPointer || f.FieldType.IsFunctionPointer))
            {
                outside.Add($"{type.FullName}.{field.Name}: pointer field");
            }

            foreach (MethodBase method in type.GetMethods(All).Cast<MethodBase>().Concat(type.GetConstructors(All)))
            {
                if (method.Attributes.HasFlag(MethodAttributes.PinvokeImpl))
                {
                    outside.Add($"{type.FullName}.{method.Name}: P/Invoke");
                }

                bool pointerReturn = method is MethodInfo { ReturnType: { } returnType } && (returnType.IsPointer || returnType.IsFunctionPointer);
                if (pointerReturn || method.GetParameters().Any(p => p.ParameterType.IsPointer || p.ParameterType.IsFunctionPointer))
                {
                    outside.Add($"{type.FullName}.{method.Name}: pointer in the signature");
                }
            }
        }

        Assert.Empty(outside);
    }

    [Fact]
    public void LibrarySources_UnsafeAndInteropCode_OnlyUnderTheNativeFolder()
    {
        string library = RepositoryFiles.Path("Encryption.Custom");
        string native = Path.Combine(library, "Native") + Path.DirectorySeparatorChar;
        List<string> outside = [];
        foreach (string file in Directory.EnumerateFiles(library, "*.cs", SearchOption.AllDirectories))
        {
            string relative = Path.GetRelativePath(library, file);
            if (file.StartsWith(native, StringComparison.Ordinal) || IsBuildOutput(relative))
            {
                continue;
            }

            string[] lines = File.ReadAllLines(file);
            for (int i = 0; i < lines.Length; i++)
            {
                string code = lines[i].Split("//", 2)[0];
                if (NativeConstruct().Match(code) is { Success: true } match)
                {
                    outside.Add($"{relative}:{i + 1}: {match.Value}");
                }
            }
        }

        Assert.Empty(outside);
    }

    [Fact]
    public void NativeFolder_HoldsTheInterop_TheScanLooksAtRealCode()
    {
        // Guards the two checks above against passing vacuously (a wrong path, a namespace rename).
        string native = RepositoryFiles.Path("Encryption.Custom", "Native");
        Assert.Contains(
            Directory.EnumerateFiles(native, "*.cs", SearchOption.AllDirectories),
            file => NativeConstruct().IsMatch(File.ReadAllText(file)));
        Assert.Contains(
            typeof(DataEncryptionKey).Assembly.GetTypes(),
            type => InNative(type.Namespace ?? string.Empty)
                && type.GetMethods(BindingFlags.NonPublic | BindingFlags.Public | BindingFlags.Static).Any(m => m.Attributes.HasFlag(MethodAttributes.PinvokeImpl)));
    }

    private static bool InNative(string ns) =>
        ns == NativeNamespace || ns.StartsWith(NativeNamespace + ".", StringComparison.Ordinal);

    private static bool IsBuildOutput(string relative) =>
        relative.StartsWith("obj" + Path.DirectorySeparatorChar, StringComparison.Ordinal)
        || relative.StartsWith("bin" + Path.DirectorySeparatorChar, StringComparison.Ordinal);

    // MemoryMarshal (safe spans) does not match: \b needs a word boundary before "Marshal".
    [GeneratedRegex(@"\bunsafe\b|\[\s*(DllImport|LibraryImport)\b|\bNativeMemory\.|\bMarshal\.|\bUnsafe\.|\bGCHandle\b")]
    private static partial Regex NativeConstruct();
}
