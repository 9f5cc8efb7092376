using System.Reflection;
using System.Reflection.Emit;

namespace Encryption.Custom.Tests.Architecture;

/// <summary>
/// The types one compiled type depends on: its base type and interfaces, field types, method and constructor
/// signatures, local variables, and the types, methods and fields its method bodies name in IL (read from the
/// bodies' bytes and resolved through the module). Generic arguments, arrays and by-refs are unwrapped, so a
/// <c>List&lt;Foo&gt;</c> field depends on <c>Foo</c>.
/// </summary>
internal static class TypeReferences
{
    private const BindingFlags DeclaredMembers =
        BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Instance | BindingFlags.Static | BindingFlags.DeclaredOnly;

    private static readonly Dictionary<short, OpCode> s_opCodesByValue = typeof(OpCodes)
        .GetFields(BindingFlags.Public | BindingFlags.Static)
        .Select(f => (OpCode)f.GetValue(null)!)
        .ToDictionary(op => op.Value);

    /// <summary>Each dependency with the place it was found ("field x", "IL of M", …).</summary>
    public static IEnumerable<(Type Target, string Via)> Of(Type type)
    {
        if (type.BaseType is { } baseType)
        {
            yield return (baseType, "base type");
        }

        foreach (Type implemented in type.GetInterfaces())
        {
            yield return (implemented, "interface");
        }

        foreach (FieldInfo field in type.GetFields(DeclaredMembers))
        {
            yield return (field.FieldType, $"field {field.Name}");
        }

        foreach (MethodBase method in type.GetMethods(DeclaredMembers).Cast<MethodBase>().Concat(type.GetConstructors(DeclaredMembers)))
        {
            if (method is MethodInfo info)
            {
                yield return (info.ReturnType, $"return of {method.Name}");
            }

            foreach (ParameterInfo parameter in method.GetParameters())
            {
                yield return (parameter.ParameterType, $"parameter of {method.Name}");
            }

            foreach ((Type target, string what) in BodyOf(type, method))
            {
                yield return (target, $"{what} in {method.Name}");
            }
        }
    }

    /// <summary>Unwraps arrays, by-refs, pointers and generic arguments down to the named types.</summary>
    public static IEnumerable<Type> Named(Type type)
    {
        if (type.HasElementType)
        {
            foreach (Type inner in Named(type.GetElementType()!))
            {
                yield return inner;
            }

            yield break;
        }

        if (type.IsGenericParameter)
        {
            yield break;
        }

        if (type.IsGenericType)
        {
            foreach (Type argument in type.GetGenericArguments().SelectMany(Named))
            {
                yield return argument;
            }

            type = type.GetGenericTypeDefinition();
        }

        yield return type;
    }

    private static IEnumerable<(Type Target, string What)> BodyOf(Type owner, MethodBase method)
    {
        MethodBody? body = method.GetMethodBody();
        if (body is null)
        {
            yield break;
        }

        foreach (LocalVariableInfo local in body.LocalVariables)
        {
            yield return (local.LocalType, "local");
        }

        byte[] il = body.GetILAsByteArray() ?? [];
        Type[]? typeArguments = owner.IsGenericType ? owner.GetGenericArguments() : null;
        Type[]? methodArguments = method.IsGenericMethod ? method.GetGenericArguments() : null;
        int offset = 0;
        while (offset < il.Length)
        {
            short value = il[offset] == 0xFE ? (short)(0xFE00 | il[offset + 1]) : il[offset];
            OpCode op = s_opCodesByValue.TryGetValue(value, out OpCode known)
                ? known
                : throw new InvalidOperationException($"Unknown IL opcode 0x{value:X} in {owner.FullName}.{method.Name}.");
            offset += op.Size;
            switch (op.OperandType)
            {
                case OperandType.InlineType or OperandType.InlineMethod or OperandType.InlineField or OperandType.InlineTok:
                    int token = BitConverter.ToInt32(il, offset);
                    MemberInfo member = method.Module.ResolveMember(token, typeArguments, methodArguments)
                        ?? throw new InvalidOperationException($"Unresolved token 0x{token:X8} in {owner.FullName}.{method.Name}.");
                    foreach ((Type target, string what) in MemberTargets(member))
                    {
                        yield return (target, what);
                    }

                    break;
            }

            offset += OperandSize(op, il, offset);
        }
    }

    private static IEnumerable<(Type, string)> MemberTargets(MemberInfo member)
    {
        switch (member)
        {
            case Type type:
                yield return (type, "IL type token");
                break;
            case FieldInfo field:
                yield return (field.DeclaringType!, $"IL field {field.Name}");
                yield return (field.FieldType, $"IL field {field.Name}");
                break;
            case MethodBase called:
                yield return (called.DeclaringType!, $"IL call {called.Name}");
                if (called.IsGenericMethod)
                {
                    foreach (Type argument in called.GetGenericArguments())
                    {
                        yield return (argument, $"IL call {called.Name}");
                    }
                }

                break;
        }
    }

    private static int OperandSize(OpCode op, byte[] il, int offset) => op.OperandType switch
    {
        OperandType.InlineNone => 0,
        OperandType.ShortInlineBrTarget or OperandType.ShortInlineI or OperandType.ShortInlineVar => 1,
        OperandType.InlineVar => 2,
        OperandType.InlineI8 or OperandType.InlineR => 8,
        OperandType.InlineSwitch => 4 + (4 * BitConverter.ToInt32(il, offset)),
        _ => 4,
    };
}
