using System.Diagnostics;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Security.Cryptography;
using Encryption.Custom.Crypto;
using Encryption.Custom.Keys;
using Encryption.Custom.Keys.Caching;
using Encryption.Custom.Keys.Local;
using Encryption.Custom.Native.Memory;

namespace Encryption.Custom.Tests.Keys;

/// <summary>
/// Every field of the library that holds key material, a key object or keyed state is hidden from a debugger's
/// variable views (<see cref="DebuggerBrowsableState.Never"/>), so that expanding an object never walks into key bytes.
/// </summary>
public sealed class KeyFieldsDebuggerVisibilityTests
{
    /// <summary>Types whose instances hold key material or keyed state.</summary>
    private static readonly Type[] s_keyHolders =
    [
        typeof(DataEncryptionKey),
        typeof(ProtectedKeyMaterial),
        typeof(SecretSlot),
        typeof(AeadKeySource),
        typeof(AeadContext),
        typeof(AeadContextPool),
        typeof(AeadAes256CbcHmacSha256),
        typeof(KeySnapshot),
        typeof(KeyLoad),
        typeof(DekCacheEntry),
        typeof(LocalKeyEncryptionKey),
        typeof(SymmetricAlgorithm),
        typeof(AsymmetricAlgorithm),
        typeof(HashAlgorithm),
        typeof(IncrementalHash),
        typeof(SafeHandle),
        typeof(ICryptoTransform),
    ];

    /// <summary>Members that match the rule but hold nothing secret.</summary>
    private static readonly string[] s_notSecret =
    [
        "Encryption.Custom.AzureKeyVault.KeyVaultPublicKey.Rsa", // a public key
        "Encryption.Custom.Json.WireFormat.BindingTarget._partitionKeyNames", // the UTF-8 names of the partition key's properties
    ];

    [Fact]
    public void KeyHoldingFields_AreNeverBrowsableInADebugger()
    {
        Assembly library = typeof(DataEncryptionKey).Assembly;
        var visible = new List<string>();
        foreach (Type type in library.GetTypes())
        {
            // Closures and async state machines have no debugger view of their own to hide fields from.
            if (type.IsDefined(typeof(CompilerGeneratedAttribute)) || typeof(Delegate).IsAssignableFrom(type))
            {
                continue;
            }

            foreach (FieldInfo field in type.GetFields(BindingFlags.Instance | BindingFlags.Static | BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.DeclaredOnly))
            {
                if (field.IsLiteral || typeof(Delegate).IsAssignableFrom(field.FieldType) || !HoldsKeys(field.FieldType, field.Name))
                {
                    continue;
                }

                // An auto-property's backing field is shown through its property.
                MemberInfo shown = BackingProperty(type, field) ?? (MemberInfo)field;
                string name = $"{type.FullName}.{shown.Name}";
                if (shown.GetCustomAttribute<DebuggerBrowsableAttribute>()?.State != DebuggerBrowsableState.Never && !s_notSecret.Contains(name))
                {
                    visible.Add(name);
                }
            }
        }

        Assert.True(visible.Count == 0, "Visible to a debugger: " + string.Join(", ", visible.Order(StringComparer.Ordinal)));
    }

    private static bool HoldsKeys(Type type, string fieldName)
    {
        if (type.IsArray)
        {
            Type element = type.GetElementType()!;
            return element == typeof(byte) ? NamesAKey(fieldName) : HoldsKeys(element, fieldName);
        }

        if (type == typeof(Memory<byte>) || type == typeof(ReadOnlyMemory<byte>))
        {
            return NamesAKey(fieldName);
        }

        if (type.IsGenericType && type.GetGenericArguments().Any(argument => HoldsKeys(argument, fieldName)))
        {
            return true;
        }

        Type unwrapped = Nullable.GetUnderlyingType(type) ?? type;
        return s_keyHolders.Any(holder => holder.IsAssignableFrom(unwrapped));
    }

    // Wrapped keys are ciphertext, stored in documents: nothing to hide.
    private static bool NamesAKey(string fieldName) =>
        (fieldName.Contains("key", StringComparison.OrdinalIgnoreCase) || fieldName.Contains("secret", StringComparison.OrdinalIgnoreCase))
        && !fieldName.Contains("wrapped", StringComparison.OrdinalIgnoreCase);

    private static PropertyInfo? BackingProperty(Type type, FieldInfo field)
    {
        if (field.GetCustomAttribute<CompilerGeneratedAttribute>() is null || !field.Name.StartsWith('<'))
        {
            return null;
        }

        string name = field.Name[1..field.Name.IndexOf('>', StringComparison.Ordinal)];
        return type.GetProperty(name, BindingFlags.Instance | BindingFlags.Static | BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.DeclaredOnly);
    }
}
