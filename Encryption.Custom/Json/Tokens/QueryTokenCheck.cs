// A strict reader's check of a document's query tokens (docs/wire-format.md "Query tokens"): every member of _q names
// a path the policy declares tokens for, each encrypted value of such a path has its member, and each member of a
// value the document holds has exactly the tokens the decrypted value gives. A token copied from another document or
// value, a member dropped or reordered, or tokens left stale by a writer without the key are refused.
using System.Buffers.Text;
using System.Globalization;
using System.Text.Json;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Tokens;

/// <summary>Verifies stored query tokens against decrypted values; allocates nothing unless it refuses.</summary>
internal static class QueryTokenCheck
{
    private const int MaxRawTokens = 64 * QueryTokenRule.MaxTokenLength;

    /// <summary>
    /// Checks the shape of <c>_q</c> (<paramref name="members"/>, its JSON object text): each member names a
    /// declared token path (<paramref name="rules"/>: per policy rule, its declaration or null), once, and
    /// holds an array; and each path whose value the document holds encrypted (bit <c>i</c> of <paramref name="encrypted"/>
    /// for rule <c>i</c>) has a member. Returns nothing; throws on the first fault.
    /// </summary>
    /// <exception cref="EncryptionException"><see cref="EncryptionErrorKind.CellBindingMismatch"/>, naming the path.</exception>
    public static void CheckMembers(ReadOnlySpan<byte> members, IReadOnlyList<QueryTokenRule?> rules, ulong encrypted, string? id)
    {
        var reader = new Utf8JsonReader(members);
        if (!reader.Read() || reader.TokenType != JsonTokenType.StartObject)
        {
            throw Mismatch("_q", id, "'_q' must be an object");
        }

        ulong seen = 0;
        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            // A member for a declared path whose value the row does not hold is allowed: a projected row carries the
            // whole '_q' beside some of the values. Such a token can only make a query fetch a row the re-check drops.
            int index = FindRule(ref reader, rules);
            if (index < 0 || (seen & (1UL << index)) != 0)
            {
                throw Mismatch(index >= 0 ? rules[index]!.Path : "_q", id, index < 0 ? "'_q' has a member for a path without query tokens" : "'_q' has a member twice");
            }

            seen |= 1UL << index;
            reader.Read();
            if (reader.TokenType != JsonTokenType.StartArray)
            {
                throw Mismatch(rules[index]!.Path, id, "the member must be an array");
            }

            reader.Skip();
        }

        for (int i = 0; i < rules.Count && i < 64; i++)
        {
            if (rules[i] is not null && (encrypted & (1UL << i)) != 0 && (seen & (1UL << i)) == 0)
            {
                throw Mismatch(rules[i]!.Path, id, "the value has no query tokens");
            }
        }
    }

    /// <summary>
    /// The member names of <c>_q</c> (<paramref name="members"/>, its JSON text) whatever the policy declares, for the
    /// migration's triage: a member this policy does not declare, or that it declares another way, is not tampering by
    /// itself (the policy may have changed since the document was written), so only the shape is checked here, against
    /// what this library writes: an object of distinct members, each an array of strings shaped like tokens (base64url
    /// of 8 to 16 bytes). Whether the tokens are the values' is <see cref="Verify"/>'s.
    /// </summary>
    /// <exception cref="EncryptionException"><see cref="EncryptionErrorKind.CellBindingMismatch"/>: a shape no writer of this library produces.</exception>
    public static List<string> ReadMemberNames(ReadOnlySpan<byte> members, string? id)
    {
        var reader = new Utf8JsonReader(members);
        if (!reader.Read() || reader.TokenType != JsonTokenType.StartObject)
        {
            throw Mismatch("_q", id, "'_q' must be an object");
        }

        var names = new List<string>();
        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            string name = reader.GetString()!;
            if (names.Contains(name, StringComparer.Ordinal))
            {
                // The name is untrusted text: shortened, as ids are.
                throw Mismatch(Diagnostics.UntrustedText.Shorten(name), id, "'_q' has a member twice");
            }

            names.Add(name);
            reader.Read();
            if (reader.TokenType != JsonTokenType.StartArray)
            {
                throw Mismatch(Diagnostics.UntrustedText.Shorten(name), id, "the member must be an array");
            }

            while (reader.Read() && reader.TokenType != JsonTokenType.EndArray)
            {
                if (reader.TokenType != JsonTokenType.String || reader.ValueIsEscaped
                    || !Base64Url.IsValid(reader.ValueSpan, out int length) || length < QueryTokenRule.MinTokenLength || length > QueryTokenRule.MaxTokenLength)
                {
                    throw Mismatch(Diagnostics.UntrustedText.Shorten(name), id, "the member holds something other than query tokens");
                }
            }
        }

        return names;
    }

    /// <summary>The JSON array text of <paramref name="path"/>'s member in <c>_q</c> (<paramref name="members"/>), or empty.</summary>
    public static ReadOnlySpan<byte> FindMember(ReadOnlySpan<byte> members, ReadOnlySpan<byte> path)
    {
        var reader = new Utf8JsonReader(members);
        reader.Read();
        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            bool match = reader.ValueTextEquals(path);
            reader.Read();
            int start = (int)reader.TokenStartIndex;
            reader.Skip();
            if (match)
            {
                return members[start..(int)reader.BytesConsumed];
            }
        }

        return default;
    }

    /// <summary>
    /// Recomputes the tokens of a decrypted value (<paramref name="marker"/>, <paramref name="plainText"/>) and compares
    /// them, in order, with <paramref name="stored"/> (the member's JSON array).
    /// </summary>
    /// <exception cref="EncryptionException"><see cref="EncryptionErrorKind.CellBindingMismatch"/>, naming the path.</exception>
    public static void Verify(DataEncryptionKey key, QueryTokenRule rule, TypeMarker marker, ReadOnlySpan<byte> plainText, ReadOnlySpan<byte> stored, string? id)
    {
        Span<byte> computed = stackalloc byte[MaxRawTokens];
        computed = computed[..(rule.TokenCount * rule.TokenLength)];
        try
        {
            QueryTokens.ComputeFromPlainText(key, rule, marker, plainText, computed);
        }
        catch (EncryptionException)
        {
            // A value the declaration refuses was never written with tokens by this library.
            throw Mismatch(rule.Path, id, "the value does not fit the path's declaration");
        }

        if (stored.IsEmpty)
        {
            throw Mismatch(rule.Path, id, "the value has no query tokens");
        }

        var reader = new Utf8JsonReader(stored);
        reader.Read();
        Span<byte> encoded = stackalloc byte[24];
        for (int slot = 0; slot < rule.TokenCount; slot++)
        {
            int length = Base64Url.EncodeToUtf8(computed.Slice(slot * rule.TokenLength, rule.TokenLength), encoded);
            if (!reader.Read() || reader.TokenType != JsonTokenType.String || reader.ValueIsEscaped || !reader.ValueSpan.SequenceEqual(encoded[..length]))
            {
                throw Mismatch(rule.Path, id, "its query tokens are not the ones its value gives");
            }
        }

        if (!reader.Read() || reader.TokenType != JsonTokenType.EndArray)
        {
            throw Mismatch(rule.Path, id, "its query tokens are not the ones its value gives");
        }
    }

    /// <summary>The refusal: the message names the document and the path, never a value or a token.</summary>
    public static EncryptionException Mismatch(string path, string? id, string reason) =>
        new(
            EncryptionErrorKind.CellBindingMismatch,
            string.Create(CultureInfo.InvariantCulture, $"{(id is null ? "The document" : $"The document '{Diagnostics.UntrustedText.Shorten(id)}'")}: the query tokens at '{path}' do not verify ({reason}); a token copied from another document or value, or tokens left stale, are refused (docs/wire-format.md \"Query tokens\")."),
            path: path);

    private static int FindRule(ref Utf8JsonReader reader, IReadOnlyList<QueryTokenRule?> rules)
    {
        for (int i = 0; i < rules.Count; i++)
        {
            // Token paths are among the first 64 rules (the policy refuses others), so a rule's bit fits a ulong.
            if (rules[i] is { } rule && reader.ValueTextEquals(rule.PathUtf8))
            {
                return i;
            }
        }

        return -1;
    }
}
