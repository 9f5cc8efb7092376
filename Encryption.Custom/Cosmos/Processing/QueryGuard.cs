namespace Encryption.Custom.Cosmos.Processing;

/// <summary>
/// Refuses, before anything is sent, a query whose filter or ordering uses a property that the container's policy
/// encrypts with randomized encryption: the service only sees ciphertexts that differ for equal values, so such a
/// query can never match or sort correctly and would quietly return wrong results.
/// </summary>
/// <remarks>
/// <para>
/// One check for every query the container sees: SQL text as given, and LINQ queries as the SDK translates them
/// (so property names are the serialized ones, whatever the naming policy or attributes). Conservative, on the
/// text: from the first <c>WHERE</c> or <c>ORDER BY</c> keyword outside string literals to the end, any
/// property access <c>x.name</c> or <c>x["name"]</c> naming a policy property is refused — including a nested
/// property of the same name and <c>IS_DEFINED(c.name)</c>, which could work (docs/policy.md). Projections
/// (<c>SELECT c.ssn</c>) are allowed: they return ciphertext that the container decrypts when <c>_ei</c> is
/// selected too.
/// </para>
/// <para>
/// The deterministic encryption a later version adds will allow equality here (the decision is per path, in this
/// one place).
/// </para>
/// </remarks>
internal sealed class QueryGuard
{
    private readonly ContainerEncryptionPolicy? _policy;

    /// <param name="policy">The container's policy; queries are checked only when it encrypts writes.</param>
    public QueryGuard(ContainerEncryptionPolicy? policy)
    {
        _policy = policy is { EncryptsWrites: true } ? policy : null;
    }

    /// <summary>Throws when <paramref name="queryText"/> filters or orders on a randomized-encrypted policy path.</summary>
    /// <exception cref="NotSupportedException">The query uses such a path; the message names it and says why.</exception>
    public void Check(string? queryText)
    {
        if (_policy is null || string.IsNullOrEmpty(queryText))
        {
            return;
        }

        if (FindEncryptedReference(queryText, _policy.Plan) is string path)
        {
            throw new NotSupportedException(
                $"The query filters or orders on '{path}', which the container's encryption policy encrypts with randomized encryption ({_policy.EncryptionAlgorithm}): the service only sees ciphertexts that differ even for equal values, so the query could never match or sort correctly. Filter on other properties and check '{path}' after reading.");
        }
    }

    /// <summary>The policy path referenced in a WHERE/ORDER BY part of <paramref name="text"/>, or <see langword="null"/>.</summary>
    internal static string? FindEncryptedReference(string text, EncryptionPlan plan)
    {
        bool inClause = false;
        char previous = '\0'; // the last significant character before the current token
        string? previousWord = null;
        int i = 0;
        while (i < text.Length)
        {
            char c = text[i];
            if (char.IsWhiteSpace(c))
            {
                i++;
                continue;
            }

            if (c is '"' or '\'')
            {
                int end = SkipLiteral(text, i);
                if (inClause && previous == '[' && FindName(text.AsSpan(i + 1, Math.Max(0, end - i - 2)), plan) is string bracketed)
                {
                    return bracketed;
                }

                previous = c;
                previousWord = null;
                i = end;
                continue;
            }

            if (char.IsLetter(c) || c == '_')
            {
                int start = i;
                while (i < text.Length && (char.IsLetterOrDigit(text[i]) || text[i] == '_'))
                {
                    i++;
                }

                string word = text[start..i];
                if (!inClause
                    && previous != '.'
                    && (word.Equals("WHERE", StringComparison.OrdinalIgnoreCase)
                        || (word.Equals("BY", StringComparison.OrdinalIgnoreCase) && string.Equals(previousWord, "ORDER", StringComparison.OrdinalIgnoreCase))))
                {
                    inClause = true;
                }
                else if (inClause && previous == '.' && FindName(word, plan) is string dotted)
                {
                    return dotted;
                }

                previous = 'a';
                previousWord = word;
                continue;
            }

            previous = c;
            previousWord = null;
            i++;
        }

        return null;
    }

    // Just after the closing quote (or the end of the text).
    private static int SkipLiteral(string text, int start)
    {
        char quote = text[start];
        int i = start + 1;
        while (i < text.Length)
        {
            if (text[i] == '\\')
            {
                i += 2;
                continue;
            }

            if (text[i] == quote)
            {
                return i + 1;
            }

            i++;
        }

        return text.Length;
    }

    private static string? FindName(ReadOnlySpan<char> name, EncryptionPlan plan)
    {
        for (int i = 0; i < plan.PathCount; i++)
        {
            string path = plan.GetPath(i);
            if (path.AsSpan(1).SequenceEqual(name))
            {
                return path;
            }
        }

        return null;
    }
}
