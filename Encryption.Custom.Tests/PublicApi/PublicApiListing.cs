using System.Globalization;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Text;

namespace Encryption.Custom.Tests.PublicApi;

/// <summary>
/// Lists every public type of an assembly and each of its public and protected members as C#-like declarations, one
/// per line: types sorted by full name, each followed by its members sorted ordinally. The text is stable for an
/// unchanged API, so it can be compared with a checked-in baseline (docs/public-api.md).
/// </summary>
internal static class PublicApiListing
{
    private const BindingFlags DeclaredMembers =
        BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Instance | BindingFlags.Static | BindingFlags.DeclaredOnly;

    public static string Generate(Assembly assembly)
    {
        var text = new StringBuilder();
        foreach (Type type in assembly.GetTypes().Where(IsVisible).OrderBy(t => TypeName(t), StringComparer.Ordinal))
        {
            text.Append(TypeDeclaration(type)).Append('\n');
            foreach (string member in Members(type).Order(StringComparer.Ordinal))
            {
                text.Append("  ").Append(member).Append('\n');
            }
        }

        return text.ToString();
    }

    // Public types, and nested types a consumer can reach (public, or protected inside an inheritable type).
    private static bool IsVisible(Type type) =>
        type.IsPublic
        || (type.IsNested && IsVisible(type.DeclaringType!)
            && (type.IsNestedPublic || ((type.IsNestedFamily || type.IsNestedFamORAssem) && !type.DeclaringType!.IsSealed)));

    private static bool IsVisible(MethodBase? method) =>
        method is not null && (method.IsPublic || method.IsFamily || method.IsFamilyOrAssembly);

    private static string TypeName(Type type) => ApiTypeNames.Format(type);

    private static string TypeDeclaration(Type type)
    {
        string attributes = (type.IsDefined(typeof(FlagsAttribute), false) ? "[Flags]" : string.Empty) + Obsolete(type);
        attributes = attributes.Length > 0 ? attributes.TrimStart() + " " : attributes;
        string access = type.IsPublic || type.IsNestedPublic ? "public" : "protected";
        if (typeof(Delegate).IsAssignableFrom(type.BaseType) && type.BaseType != typeof(Delegate))
        {
            MethodInfo invoke = type.GetMethod("Invoke")!;
            return $"{attributes}{access} delegate {ReturnType(invoke)} {TypeName(type)}({Parameters(invoke)})";
        }

        string kind = type switch
        {
            { IsEnum: true } => "enum",
            { IsInterface: true } => "interface",
            { IsValueType: true } => (type.IsDefined(typeof(IsReadOnlyAttribute), false) ? "readonly " : string.Empty)
                + (type.IsByRefLike ? "ref " : string.Empty) + "struct",
            { IsAbstract: true, IsSealed: true } => "static class",
            { IsAbstract: true } => "abstract class",
            { IsSealed: true } => "sealed class",
            _ => "class",
        };

        var bases = new List<string>();
        if (type.IsEnum)
        {
            bases.Add(ApiTypeNames.Format(Enum.GetUnderlyingType(type)));
        }
        else if (type.BaseType is { } baseType && baseType != typeof(object) && baseType != typeof(ValueType))
        {
            bases.Add(ApiTypeNames.Format(baseType));
        }

        if (!type.IsEnum)
        {
            bases.AddRange(type.GetInterfaces().Select(i => ApiTypeNames.Format(i)).Order(StringComparer.Ordinal));
        }

        return $"{attributes}{access} {kind} {TypeName(type)}" + (bases.Count > 0 ? " : " + string.Join(", ", bases) : string.Empty);
    }

    private static IEnumerable<string> Members(Type type)
    {
        if (type.IsEnum)
        {
            foreach (FieldInfo field in type.GetFields(BindingFlags.Public | BindingFlags.Static))
            {
                yield return $"{field.Name} = {Convert.ToString(field.GetRawConstantValue(), CultureInfo.InvariantCulture)}";
            }

            yield break;
        }

        if (typeof(Delegate).IsAssignableFrom(type.BaseType))
        {
            yield break;
        }

        var nullability = new NullabilityInfoContext();
        foreach (MemberInfo member in type.GetMembers(DeclaredMembers))
        {
            // Compiler-generated members (record clone methods and the like) have names C# cannot spell.
            if (member.Name.Contains('<', StringComparison.Ordinal))
            {
                continue;
            }

            string? line = member switch
            {
                ConstructorInfo constructor when IsVisible(constructor) && !constructor.IsStatic =>
                    $"{Access(constructor)}{Obsolete(constructor)} {type.Name.Split('`')[0]}({Parameters(constructor)})",
                // Accessors appear with their property or event; operators are special names too but stay.
                MethodInfo method when IsVisible(method) && (!method.IsSpecialName || method.Name.StartsWith("op_", StringComparison.Ordinal)) =>
                    Method(method, nullability),
                PropertyInfo property when IsVisible(property.GetMethod) || IsVisible(property.SetMethod) =>
                    Property(property, nullability),
                FieldInfo field when field.IsPublic || field.IsFamily || field.IsFamilyOrAssembly => Field(field, nullability),
                EventInfo @event when IsVisible(@event.AddMethod) =>
                    $"{Access(@event.AddMethod!)}{Modifiers(@event.AddMethod!)} event {ApiTypeNames.Format(@event.EventHandlerType!, nullability.Create(@event))} {@event.Name}",
                _ => null,
            };
            if (line is not null)
            {
                yield return line;
            }
        }
    }

    private static string Method(MethodInfo method, NullabilityInfoContext nullability)
    {
        Type[] typeParameters = method.IsGenericMethodDefinition ? method.GetGenericArguments() : [];
        string generics = typeParameters.Length > 0 ? "<" + string.Join(", ", typeParameters.Select(a => a.Name)) + ">" : string.Empty;
        return $"{Access(method)}{Obsolete(method)}{Modifiers(method)} {ReturnType(method, nullability)} {method.Name}{generics}"
            + $"({Parameters(method, nullability)}){Constraints(typeParameters)}";
    }

    private static string Property(PropertyInfo property, NullabilityInfoContext nullability)
    {
        MethodInfo accessor = IsVisible(property.GetMethod) ? property.GetMethod! : property.SetMethod!;
        var accessors = new List<string>();
        if (IsVisible(property.GetMethod))
        {
            accessors.Add(AccessorAccess(property.GetMethod!, accessor) + "get;");
        }

        if (IsVisible(property.SetMethod))
        {
            bool init = property.SetMethod!.ReturnParameter.GetRequiredCustomModifiers().Contains(typeof(IsExternalInit));
            accessors.Add(AccessorAccess(property.SetMethod, accessor) + (init ? "init;" : "set;"));
        }

        string required = property.IsDefined(typeof(RequiredMemberAttribute), false) ? " required" : string.Empty;
        ParameterInfo[] index = property.GetIndexParameters();
        string name = index.Length == 0 ? property.Name : $"this[{string.Join(", ", index.Select(p => Parameter(p, nullability)))}]";
        return $"{Access(accessor)}{Obsolete(property)}{Modifiers(accessor)}{required} {ApiTypeNames.Format(property.PropertyType, nullability.Create(property))} {name} {{ {string.Join(' ', accessors)} }}";
    }

    private static string Field(FieldInfo field, NullabilityInfoContext nullability)
    {
        string type = ApiTypeNames.Format(field.FieldType, nullability.Create(field));
        string access = field.IsPublic ? "public" : "protected";
        if (field.IsLiteral)
        {
            return $"{access}{Obsolete(field)} const {type} {field.Name} = {Literal(field.GetRawConstantValue(), field.FieldType)}";
        }

        string modifiers = (field.IsStatic ? " static" : string.Empty) + (field.IsInitOnly ? " readonly" : string.Empty);
        return $"{access}{Obsolete(field)}{modifiers} {type} {field.Name}";
    }

    private static string Access(MethodBase method) => method.IsPublic ? "public" : method.IsFamilyOrAssembly ? "protected internal" : "protected";

    // An accessor less visible than the property says so, as in C# ("protected set;").
    private static string AccessorAccess(MethodInfo accessor, MethodInfo property) =>
        Access(accessor) == Access(property) ? string.Empty : Access(accessor) + " ";

    private static string Modifiers(MethodInfo method)
    {
        var modifiers = new StringBuilder();
        if (method.IsStatic)
        {
            modifiers.Append(" static");
        }

        bool overrides = method.GetBaseDefinition().DeclaringType != method.DeclaringType;
        if (method.IsAbstract)
        {
            modifiers.Append(method.DeclaringType!.IsInterface ? string.Empty : overrides ? " abstract override" : " abstract");
        }
        else if (method.IsVirtual && overrides)
        {
            modifiers.Append(method.IsFinal ? " sealed override" : " override");
        }
        else if (method.IsVirtual && !method.IsFinal)
        {
            modifiers.Append(" virtual");
        }

        return modifiers.ToString();
    }

    private static string ReturnType(MethodInfo method, NullabilityInfoContext? nullability = null)
    {
        ParameterInfo returned = method.ReturnParameter;
        string prefix = returned.ParameterType.IsByRef
            ? returned.IsDefined(typeof(IsReadOnlyAttribute), false) ? "ref readonly " : "ref "
            : string.Empty;
        return prefix + ApiTypeNames.Format(returned.ParameterType, nullability?.Create(returned));
    }

    private static string Parameters(MethodBase method, NullabilityInfoContext? nullability = null)
    {
        string parameters = string.Join(", ", method.GetParameters().Select(p => Parameter(p, nullability ?? new NullabilityInfoContext())));
        return method.IsDefined(typeof(ExtensionAttribute), false) ? "this " + parameters : parameters;
    }

    private static string Parameter(ParameterInfo parameter, NullabilityInfoContext nullability)
    {
        string prefix = parameter switch
        {
            { ParameterType.IsByRef: true, IsOut: true } => "out ",
            { ParameterType.IsByRef: true } when parameter.IsDefined(typeof(IsReadOnlyAttribute), false) || parameter.IsIn => "in ",
            { ParameterType.IsByRef: true } => "ref ",
            _ when parameter.IsDefined(typeof(ParamArrayAttribute), false) || parameter.IsDefined(typeof(ParamCollectionAttribute), false) => "params ",
            _ => string.Empty,
        };
        if (parameter.IsDefined(typeof(ScopedRefAttribute), false))
        {
            prefix = "scoped " + prefix;
        }

        string declaration = $"{prefix}{ApiTypeNames.Format(parameter.ParameterType, nullability.Create(parameter))} {parameter.Name}";
        return parameter.HasDefaultValue ? $"{declaration} = {Literal(parameter.RawDefaultValue, parameter.ParameterType)}" : declaration;
    }

    private static string Literal(object? value, Type type) => value switch
    {
        null => type.IsValueType && Nullable.GetUnderlyingType(type) is null ? "default" : "null",
        string text => "\"" + text.Replace("\\", "\\\\", StringComparison.Ordinal).Replace("\"", "\\\"", StringComparison.Ordinal) + "\"",
        bool flag => flag ? "true" : "false",
        _ when type.IsEnum => $"({ApiTypeNames.Format(type)}){Convert.ToString(value, CultureInfo.InvariantCulture)}",
        IFormattable number => number.ToString(null, CultureInfo.InvariantCulture),
        _ => value.ToString() ?? string.Empty,
    };

    private static string Constraints(Type[] parameters)
    {
        var clauses = new StringBuilder();
        foreach (Type parameter in parameters)
        {
            var constraints = new List<string>();
            GenericParameterAttributes flags = parameter.GenericParameterAttributes;
            if (flags.HasFlag(GenericParameterAttributes.ReferenceTypeConstraint))
            {
                constraints.Add("class");
            }

            if (flags.HasFlag(GenericParameterAttributes.NotNullableValueTypeConstraint))
            {
                constraints.Add("struct");
            }

            constraints.AddRange(parameter.GetGenericParameterConstraints().Where(c => c != typeof(ValueType)).Select(c => ApiTypeNames.Format(c)));
            if (flags.HasFlag(GenericParameterAttributes.DefaultConstructorConstraint) && !flags.HasFlag(GenericParameterAttributes.NotNullableValueTypeConstraint))
            {
                constraints.Add("new()");
            }

            if (constraints.Count > 0)
            {
                clauses.Append(" where ").Append(parameter.Name).Append(" : ").Append(string.Join(", ", constraints));
            }
        }

        return clauses.ToString();
    }

    private static string Obsolete(MemberInfo member) =>
        member.GetCustomAttribute<ObsoleteAttribute>(false) is { } obsolete ? $" [Obsolete(\"{obsolete.Message}\")]" : string.Empty;
}
