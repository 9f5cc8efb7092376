using Encryption.Custom.Json.Rules;
using Microsoft.Azure.Cosmos;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Cosmos.Patch;

/// <summary>
/// Applies patch operations to a decrypted document in process, with the semantics Azure Cosmos DB documents for
/// them (add, set, replace, remove, increment, move), for the conditional replace that stands in for a patch the
/// service cannot be sent (docs/policy.md, "Patch"). Paths are parsed by <see cref="RulePath"/>, as everywhere.
/// </summary>
internal static class PatchApplier
{
    /// <summary>Applies <paramref name="operations"/> in order.</summary>
    /// <returns><see langword="null"/> when all applied, else why one could not (as the service would answer 400; no values in it).</returns>
    public static string? TryApply(JObject document, IReadOnlyList<PatchOperation> operations, CosmosSerializer serializer, int maxDepth)
    {
        foreach (PatchOperation operation in operations)
        {
            string? error = operation.OperationType switch
            {
                PatchOperationType.Remove => Remove(document, operation.Path, out _),
                PatchOperationType.Move => Move(document, operation.From, operation.Path),
                PatchOperationType.Increment => Increment(document, operation.Path, PatchRewriter.ReadValue(operation, serializer, maxDepth, null).Value),
                _ => Write(document, operation.OperationType, operation.Path, PatchRewriter.ReadValue(operation, serializer, maxDepth, null).Value),
            };
            if (error is not null)
            {
                return $"The patch operation '{operation.OperationType}' on '{operation.Path}' cannot be applied: {error}";
            }
        }

        return null;
    }

    private static string? Write(JObject document, PatchOperationType type, string path, JToken value)
    {
        if (!TryFindParent(document, path, out JToken? parent, out string? name, out string? error))
        {
            return error;
        }

        if (parent is JObject obj)
        {
            if (type == PatchOperationType.Replace && !obj.ContainsKey(name!))
            {
                return "the property does not exist (replace does not create).";
            }

            obj[name!] = value;
            return null;
        }

        var array = (JArray)parent!;
        // "-" (past the end) is add's alone: set and replace update an element that exists.
        if (name == "-" && type == PatchOperationType.Add)
        {
            array.Add(value);
            return null;
        }

        if (!int.TryParse(name, System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out int index))
        {
            return "the segment under an array is not an index.";
        }

        if (type == PatchOperationType.Add && index <= array.Count)
        {
            array.Insert(index, value);
            return null;
        }

        if (type != PatchOperationType.Add && index < array.Count)
        {
            array[index] = value;
            return null;
        }

        // Set and replace update an existing element only ("a valid array index"); add alone may append at the length.
        return "the array index is out of range.";
    }

    private static string? Remove(JObject document, string path, out JToken? removed)
    {
        removed = null;
        if (!TryFindParent(document, path, out JToken? parent, out string? name, out string? error))
        {
            return error;
        }

        if (parent is JObject obj)
        {
            if (!obj.TryGetValue(name!, out removed))
            {
                return "the property does not exist.";
            }

            obj.Remove(name!);
            return null;
        }

        var array = (JArray)parent!;
        if (!int.TryParse(name, System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out int index) || index >= array.Count)
        {
            return "the array index is out of range.";
        }

        removed = array[index];
        array.RemoveAt(index);
        return null;
    }

    private static string? Increment(JObject document, string path, JToken by)
    {
        if (by.Type is not (JTokenType.Integer or JTokenType.Float))
        {
            return "the increment is not a number.";
        }

        if (!TryFindParent(document, path, out JToken? parent, out string? name, out string? error))
        {
            return error;
        }

        // A missing property is created with the increment; an array element must exist; a value that is not a
        // number (null included) is refused.
        JToken? current;
        if (parent is JObject obj)
        {
            current = obj[name!];
            if (current is null)
            {
                obj[name!] = by;
                return null;
            }
        }
        else
        {
            var array = (JArray)parent!;
            if (!int.TryParse(name, System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out int index) || index >= array.Count)
            {
                return "the array index is out of range.";
            }

            current = array[index];
        }

        if (current.Type is JTokenType.Integer && by.Type is JTokenType.Integer)
        {
            current.Replace((long)current + (long)by);
            return null;
        }

        if (current.Type is JTokenType.Integer or JTokenType.Float)
        {
            current.Replace((double)current + (double)by);
            return null;
        }

        return "the current value is not a number.";
    }

    private static string? Move(JObject document, string from, string path)
    {
        if (path.StartsWith(from + "/", StringComparison.Ordinal))
        {
            return "the source contains the target.";
        }

        // Removes the value and adds it at the target: an array index there inserts, as add does (RFC 6902's move).
        string? error = Remove(document, from, out JToken? value);
        return error ?? Write(document, PatchOperationType.Add, path, value!);
    }

    private static bool TryFindParent(JObject document, string path, out JToken? parent, out string? name, out string? error)
    {
        parent = null;
        name = null;
        if (!RulePath.TryParse(path, out RulePath? parsed, out error))
        {
            return false;
        }

        JToken current = document;
        for (int i = 0; i < parsed!.Depth - 1; i++)
        {
            string segment = parsed.Segments[i];
            JToken? next = current switch
            {
                JObject obj => obj[segment],
                JArray array when int.TryParse(segment, System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out int index) && index < array.Count => array[index],
                _ => null,
            };
            if (next is not (JObject or JArray))
            {
                error = "a segment before the last does not exist or is not an object or array.";
                return false;
            }

            current = next;
        }

        parent = current;
        name = parsed.Segments[parsed.Depth - 1];
        return true;
    }
}
