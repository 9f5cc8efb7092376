using System.Buffers;
using System.Security.Cryptography;
using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.Streaming;
using Encryption.Custom.Json.Tokens;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Keys;

namespace Encryption.Custom.Json.Inspection;

/// <summary>
/// What both inspectors report about a document's query tokens (<c>_q</c>, docs/wire-format.md "Query tokens"), with
/// <see cref="QueryTokenCheck"/>'s rules: the member names and shape, and, given the key, whether one value's tokens
/// are the ones its value gives under the target's declaration.
/// </summary>
internal static class InspectedQueryTokens
{
    /// <summary>The member names of <c>_q</c> (its JSON text), or why its shape is not one this library writes.</summary>
    public static (IReadOnlyList<string>? Names, EncryptionException? Error) Read(ReadOnlySpan<byte> members, string? id)
    {
        try
        {
            return (QueryTokenCheck.ReadMemberNames(members, id), null);
        }
        catch (EncryptionException exception)
        {
            return (null, exception);
        }
    }

    /// <summary>
    /// <paramref name="inspection"/> with the token state of every path it lists, top-level or nested, that
    /// <paramref name="rules"/> declares tokens for, each path's one value found in the stored bytes
    /// (<see cref="PathValue"/>): <see cref="InspectedTokens.NoValue"/> when the document holds none there; else, with
    /// the key, <see cref="Check"/>'s answer for an unbound cell, and for a bound cell when the rules know the
    /// container the document is bound to; else <see cref="InspectedTokens.Unchecked"/>.
    /// </summary>
    /// <exception cref="EncryptionException">A listed nested selector holds a value that is not a string, as the readers refuse it.</exception>
    public static DocumentInspection WithTokens(DocumentInspection inspection, ReadOnlySpan<byte> document, PolicyRuleSet? rules, DataEncryptionKey? key, ReadOnlySpan<byte> members, int maxDepth)
    {
        if (inspection.QueryTokenMembers is null || rules?.Plan is not { HasQueryTokens: true } plan)
        {
            return inspection;
        }

        CellBinding binding = BindingOf(inspection, document, plan, key, maxDepth);
        InspectedPath[] paths = [.. inspection.Paths];
        for (int i = 0; i < paths.Length; i++)
        {
            if (plan.IndexOf(paths[i].Path) is not (>= 0 and int index) || plan.GetQueryTokens(index) is not { } rule)
            {
                continue;
            }

            switch (PathValue.Find(document, plan.GetRulePath(index), maxDepth, out byte[]? cell))
            {
                case PathValue.Kind.None:
                    paths[i] = paths[i] with { Tokens = InspectedTokens.NoValue };
                    continue;
                case PathValue.Kind.Other:
                    JsonErrors.ThrowNotAnEncryptedString(paths[i].Path, inspection.KeyId!);
                    break;
            }

            // Top-level cells were classified by the inspector; nested ones are classified here, for their tokens only.
            InspectedCellType type = paths[i].Nested ? CellTypes.Classify(cell, paths[i].Path, key, inspection.KeyId!, out _) : paths[i].Type;
            if (key is not null && (type is InspectedCellType.Deterministic or InspectedCellType.Randomized || (type == InspectedCellType.Bound && !binding.IsEmpty)))
            {
                paths[i] = paths[i] with { Tokens = Check(cell, rule, key, members, inspection.Id, type == InspectedCellType.Bound ? binding : default) };
            }
        }

        return inspection with { Paths = paths };
    }

    // A bound document's binding, when the rules know its container and the key is at hand; else none (bound cells
    // then stay unchecked). A document whose id or partition key cannot be bound is the readers' to refuse.
    private static CellBinding BindingOf(DocumentInspection inspection, ReadOnlySpan<byte> document, EncryptionPlan plan, DataEncryptionKey? key, int maxDepth)
    {
        if (!inspection.Bound || key is null || plan.Binding is not { } target)
        {
            return default;
        }

        try
        {
            return BindingScan.Compute(document, target, inspection.Algorithm!, inspection.KeyId!, maxDepth);
        }
        catch (EncryptionException)
        {
            return default;
        }
    }

    /// <summary>
    /// Whether the tokens stored for one cell (<paramref name="base64"/>, unescaped; bound to <paramref name="binding"/>
    /// at the rule's path unless that is empty) are the ones its decrypted value gives under <paramref name="rule"/>:
    /// <see cref="InspectedTokens.Verified"/>, or <see cref="InspectedTokens.Stale"/> (no member, other tokens, another
    /// declaration or key, or a value the declaration cannot hold). A cell the key does not decrypt stays
    /// <see cref="InspectedTokens.Unchecked"/>: its type, or the reader, reports it.
    /// </summary>
    public static InspectedTokens Check(ReadOnlySpan<byte> base64, QueryTokenRule rule, DataEncryptionKey key, ReadOnlySpan<byte> members, string? id, in CellBinding binding)
    {
        int blobLength = EncryptedValueCodec.GetMaxBlobLength(base64.Length);
        int plainTextLength = EncryptedValueCodec.GetMaxPlainTextLength(key, base64.Length);
        byte[] blob = ArrayPool<byte>.Shared.Rent(blobLength);
        byte[] plainText = ArrayPool<byte>.Shared.Rent(plainTextLength);
        try
        {
            EncryptedValueStatus status = binding.IsEmpty
                ? EncryptedValueCodec.TryDecrypt(key, base64, blob.AsSpan(0, blobLength), plainText.AsSpan(0, plainTextLength), out TypeMarker marker, out int length)
                : BoundValueCodec.TryDecrypt(key, binding, rule.PathUtf8, base64, plainText.AsSpan(0, plainTextLength), out marker, out length);
            if (status != EncryptedValueStatus.Valid)
            {
                return InspectedTokens.Unchecked;
            }

            QueryTokenCheck.Verify(key, rule, marker, plainText.AsSpan(0, length), QueryTokenCheck.FindMember(members, rule.PathUtf8), id);
            return InspectedTokens.Verified;
        }
        catch (EncryptionException)
        {
            // Verify's refusal: the strict reader refuses such a document, the migration rewrites it from its
            // authenticated value (the tokens are derived from it, so nothing the attacker wrote is kept).
            return InspectedTokens.Stale;
        }
        finally
        {
            CryptographicOperations.ZeroMemory(plainText.AsSpan(0, plainTextLength));
            ArrayPool<byte>.Shared.Return(plainText);
            ArrayPool<byte>.Shared.Return(blob);
        }
    }
}

/// <summary>Whether a listed value's query tokens are those of its value under the target's declaration.</summary>
internal enum InspectedTokens
{
    /// <summary>Not checked: no declaration for the path, no key, a bound cell of an unknown container, or a value the key does not decrypt.</summary>
    Unchecked,

    /// <summary>The stored tokens are exactly those the decrypted value gives.</summary>
    Verified,

    /// <summary>The stored tokens are missing or not those the decrypted value gives under the declaration.</summary>
    Stale,

    /// <summary>A listed path that holds no value in the document (absent or null): no tokens are due.</summary>
    NoValue,
}
