using System.Reflection;

namespace Encryption.Custom.Tests.PublicApi;

/// <summary>
/// C#-like names of types as the public API listing writes them: keywords for the built-in types, full names with
/// generic arguments, and the nullable annotations the compiler recorded (<c>string?</c>, <c>List&lt;string?&gt;</c>).
/// </summary>
internal static class ApiTypeNames
{
    private static readonly Dictionary<Type, string> s_keywords = new()
    {
        [typeof(void)] = "void",
        [typeof(object)] = "object",
        [typeof(string)] = "string",
        [typeof(bool)] = "bool",
        [typeof(byte)] = "byte",
        [typeof(sbyte)] = "sbyte",
        [typeof(char)] = "char",
        [typeof(short)] = "short",
        [typeof(ushort)] = "ushort",
        [typeof(int)] = "int",
        [typeof(uint)] = "uint",
        [typeof(long)] = "long",
        [typeof(ulong)] = "ulong",
        [typeof(float)] = "float",
        [typeof(double)] = "double",
        [typeof(decimal)] = "decimal",
        [typeof(nint)] = "nint",
        [typeof(nuint)] = "nuint",
    };

    /// <summary>The name of <paramref name="type"/>, annotated from <paramref name="nullability"/> when known.</summary>
    public static string Format(Type type, NullabilityInfo? nullability = null)
    {
        if (type.IsByRef || type.IsPointer)
        {
            string element = Format(type.GetElementType()!, nullability);
            return type.IsPointer ? element + "*" : element;
        }

        if (Nullable.GetUnderlyingType(type) is { } underlying)
        {
            return Format(underlying, nullability?.GenericTypeArguments.FirstOrDefault()) + "?";
        }

        string name;
        if (type.IsArray)
        {
            string rank = new(',', type.GetArrayRank() - 1);
            name = Format(type.GetElementType()!, nullability?.ElementType) + "[" + rank + "]";
        }
        else if (type.IsGenericParameter)
        {
            name = type.Name;
        }
        else if (s_keywords.TryGetValue(type, out string? keyword))
        {
            name = keyword;
        }
        else
        {
            name = FormatNamed(type, nullability);
        }

        // Value types carry their nullability in Nullable<T> (handled above), reference types in the annotation.
        return !type.IsValueType && nullability?.ReadState == NullabilityState.Nullable ? name + "?" : name;
    }

    private static string FormatNamed(Type type, NullabilityInfo? nullability)
    {
        Type definition = type.IsGenericType ? type.GetGenericTypeDefinition() : type;
        string fullName = (definition.FullName ?? definition.Name).Replace('+', '.');
        int tick = fullName.IndexOf('`', StringComparison.Ordinal);
        if (tick < 0)
        {
            return fullName;
        }

        // Nested generic types list every argument after the outermost name; enough for a stable listing.
        Type[] arguments = type.GetGenericArguments();
        var names = new string[arguments.Length];
        for (int i = 0; i < arguments.Length; i++)
        {
            NullabilityInfo? argument = nullability is not null && i < nullability.GenericTypeArguments.Length
                ? nullability.GenericTypeArguments[i]
                : null;
            names[i] = Format(arguments[i], argument);
        }

        return StripArity(fullName) + "<" + string.Join(", ", names) + ">";
    }

    private static string StripArity(string name) =>
        string.Join('.', name.Split('.').Select(part => part.Split('`')[0]));
}
