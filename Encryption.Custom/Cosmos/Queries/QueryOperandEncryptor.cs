using System.Globalization;
using System.Security.Cryptography;
using System.Text;
using Encryption.Custom.Cosmos.Queries.Sql;
using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.Leasing;
using Encryption.Custom.Json.Values;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Keys;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Cosmos.Queries;

/// <summary>
/// Encrypts the value a deterministic path is compared with, under every key the policy accepts (the current key
/// first), exactly as a document property holding it is encrypted: a literal by its JSON type, a parameter as the
/// client's serializer writes it. A parameter that already holds this path's ciphertext under an accepted key
/// (from <see cref="EncryptionQueryDefinitionExtensions.AddParameterAsync"/>) is decrypted and re-encrypted under
/// every accepted key, so the rotation expansion comes from the parameters themselves.
/// </summary>
/// <remarks>
/// Keys are leased synchronously (the query iterators are created synchronously): free when cached, otherwise the
/// thread waits once. Each key is leased once per query (<see cref="QueryKeyLeases"/>), not once per operand. Plaintext buffers are wiped before they are returned.
/// </remarks>
internal sealed class QueryOperandEncryptor
{
    private readonly QueryPolicyPaths _policy;
    private readonly Encryptor _encryptor;
    private readonly CosmosSerializer _serializer;

    public QueryOperandEncryptor(QueryPolicyPaths policy, Encryptor encryptor, CosmosSerializer serializer)
    {
        _policy = policy;
        _encryptor = encryptor;
        _serializer = serializer;
    }

    /// <summary>Leases for the keys of one query's operands (<see cref="Encrypt"/>), disposed by the caller.</summary>
    public QueryKeyLeases LeaseKeys() => new(_encryptor, _policy.EncryptionAlgorithm);

    /// <summary>The ciphertexts of <paramref name="operand"/> for the path, or <see langword="null"/> when it is sent as it is (a null value, an unknown parameter).</summary>
    /// <exception cref="EncryptionException">The value is an object or array, or a number no document property could hold, or a key is unavailable.</exception>
    public string[]? Encrypt(SqlExpression operand, int pathIndex, IReadOnlyDictionary<string, object?> parameters, QueryKeyLeases keys)
    {
        using PlainValueBuffer? value = operand switch
        {
            SqlLiteral literal => FromLiteral(literal, pathIndex),
            SqlParameterReference parameter when parameters.TryGetValue(parameter.Name, out object? given) && given is not null
                => FromParameter(parameter.Name, given, pathIndex, keys),
            _ => null,
        };
        return value is null ? null : EncryptUnderEveryKey(value, pathIndex, keys);
    }

    /// <summary>
    /// The ciphertext of a parameter value under the current key (for AddParameterAsync), or <see langword="null"/>
    /// for a null value. The keys are leased asynchronously first: a cache miss awaits the key provider instead of
    /// blocking the caller's thread.
    /// </summary>
    /// <exception cref="EncryptionException">The value is an object or array, or a number no document property could hold, or a key is unavailable.</exception>
    public async ValueTask<string?> EncryptUnderCurrentKeyAsync(object value, int pathIndex, CancellationToken cancellationToken)
    {
        using QueryKeyLeases keys = LeaseKeys();
        await keys.LeaseAllAsync(_policy.ReadableKeyIds, cancellationToken).ConfigureAwait(false);
        return EncryptUnderCurrentKey(value, pathIndex, keys);
    }

    private string? EncryptUnderCurrentKey(object value, int pathIndex, QueryKeyLeases keys)
    {
        using PlainValueBuffer? plainValue = FromParameter(name: null, value, pathIndex, keys);
        return plainValue is null ? null : EncryptUnderEveryKey(plainValue, pathIndex, keys, currentOnly: true)[0];
    }

    // As a document stores the value at the path (StoredValue: the deterministic cell, the id in its stored alphabet).
    private string[] EncryptUnderEveryKey(PlainValueBuffer value, int pathIndex, QueryKeyLeases keys, bool currentOnly = false)
    {
        var cipherTexts = new List<string>();
        foreach (string keyId in currentOnly ? _policy.ReadableKeyIds.Take(1) : _policy.ReadableKeyIds)
        {
            cipherTexts.Add(StoredValue.Encrypt(keys.Get(keyId), value, Site(pathIndex)));
        }

        return [.. cipherTexts];
    }

    // Where an operand of the path is stored; errors name the current key.
    private ValueSite Site(int pathIndex) => new(_policy.GetPath(pathIndex), _policy.GetDeterministicPrefix(pathIndex), _policy.ReadableKeyIds.First());

    // A SQL literal read into the value it stands for, then classified by the rules every document value follows.
    private PlainValueBuffer FromLiteral(SqlLiteral literal, int pathIndex)
    {
        switch (literal.Kind)
        {
            case SqlLiteralKind.String:
                return PlainValueBuffer.FromString(literal.Text, _policy.GetPath(pathIndex));
            case SqlLiteralKind.Boolean:
                return PlainValueBuffer.FromBoolean(literal.Text.Equals("true", StringComparison.OrdinalIgnoreCase));
            default:
                if (literal.Text.StartsWith("0x", StringComparison.OrdinalIgnoreCase)
                    && long.TryParse(literal.Text.AsSpan(2), NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out long hex))
                {
                    return PlainValueBuffer.FromInteger(hex);
                }

                return PlainValueBuffer.FromNumber(Encoding.ASCII.GetBytes(literal.Text), _policy.GetPath(pathIndex));
        }
    }

    // A parameter as the client's serializer writes it, or, when it holds this path's ciphertext (AddParameterAsync),
    // its plaintext; null for a null value. A name is given for a query's parameter (checked against other paths).
    private PlainValueBuffer? FromParameter(string? name, object value, int pathIndex, QueryKeyLeases keys)
    {
        if (name is not null)
        {
            RefuseForeignCipherText(name, value, pathIndex, keys);
        }

        if (value is string text && TryDecryptOwnCipherText(text, pathIndex, keys) is { } own)
        {
            return own;
        }

        byte[] json;
        try
        {
            json = Serialize(value);
        }
        catch (EncoderFallbackException)
        {
            // A strict serializer refuses a lone surrogate itself: refused as the rules refuse it, without its message.
            throw PlainValue.LoneSurrogate(_policy.GetPath(pathIndex));
        }

        try
        {
            // Objects and arrays are refused at their first token (the path is deterministic), so the depth limit is
            // never reached; it is the processors' default only for form's sake.
            return PlainValueBuffer.FromJson(json, Site(pathIndex), EncryptionProcessorOptions.DefaultMaxDepth);
        }
        finally
        {
            CryptographicOperations.ZeroMemory(json);
        }
    }

    private byte[] Serialize(object value)
    {
        if (value is Stream stream)
        {
            using var copy = new MemoryStream();
            stream.CopyTo(copy);
            return copy.ToArray();
        }

        using Stream serialized = _serializer.ToStream(value);
        using var buffer = new MemoryStream();
        serialized.CopyTo(buffer);
        return buffer.ToArray();
    }

    // A value AddParameterAsync made for another deterministic path (its IV is bound to that path) would be taken
    // for a plain string here, encrypted again and match nothing: refused, naming both paths.
    private void RefuseForeignCipherText(string name, object value, int pathIndex, QueryKeyLeases keys)
    {
        if (value is not string text)
        {
            return;
        }

        for (int other = 0; other < _policy.PathCount; other++)
        {
            if (other == pathIndex || !_policy.IsDeterministic(other))
            {
                continue;
            }

            byte[] base64 = Encoding.UTF8.GetBytes(IdCellText.ForCodec(_policy.GetPath(other), text));

            foreach (string keyId in _policy.ReadableKeyIds)
            {
                if (EncryptedValueCodec.TryCheckDeterministic(keys.Get(keyId), base64, _policy.GetDeterministicPrefix(other), out bool deterministic) == EncryptedValueStatus.Valid
                    && deterministic)
                {
                    throw new NotSupportedException(
                        $"The parameter {name} holds a value AddParameterAsync encrypted for '{_policy.GetPath(other)}', but the query compares it with '{_policy.GetPath(pathIndex)}': a deterministic ciphertext is bound to its path, so it could never match there. Add one parameter per path (AddParameterAsync with '{_policy.GetPath(pathIndex)}', or WithParameter with the plaintext, which the container encrypts for the path it meets; docs/queries.md).");
                }
            }
        }
    }

    // A value AddParameterAsync encrypted for this path, under any accepted key: its plaintext, or null.
    private PlainValueBuffer? TryDecryptOwnCipherText(string text, int pathIndex, QueryKeyLeases keys)
    {
        byte[] base64 = Encoding.UTF8.GetBytes(IdCellText.ForCodec(_policy.GetPath(pathIndex), text));
        foreach (string keyId in _policy.ReadableKeyIds)
        {
            DataEncryptionKey key = keys.Get(keyId);
            if (EncryptedValueCodec.TryCheckDeterministic(key, base64, _policy.GetDeterministicPrefix(pathIndex), out bool deterministic) != EncryptedValueStatus.Valid
                || !deterministic)
            {
                continue;
            }

            byte[] blob = new byte[EncryptedValueCodec.GetMaxBlobLength(base64.Length)];
            byte[] plainText = new byte[EncryptedValueCodec.GetMaxPlainTextLength(key, base64.Length)];
            if (EncryptedValueCodec.TryDecrypt(key, base64, blob, plainText, out TypeMarker marker, out int length) == EncryptedValueStatus.Valid)
            {
                return PlainValueBuffer.FromDecrypted(marker, plainText, length);
            }

            CryptographicOperations.ZeroMemory(plainText);
        }

        return null;
    }
}
