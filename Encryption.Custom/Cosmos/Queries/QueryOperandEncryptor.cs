using System.Diagnostics;
using System.Globalization;
using System.Security.Cryptography;
using System.Text;
using System.Text.Json;
using Encryption.Custom.Cosmos.Queries.Sql;
using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.Leasing;
using Encryption.Custom.Json.Streaming;
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
        byte[]? plainText = null;
        try
        {
            TypeMarker marker;
            int length;
            switch (operand)
            {
                case SqlLiteral literal:
                    (marker, plainText, length) = FromLiteral(literal, pathIndex);
                    break;
                case SqlParameterReference parameter when parameters.TryGetValue(parameter.Name, out object? value) && value is not null:
                    RefuseForeignCipherText(parameter.Name, value, pathIndex, keys);
                    if (!TryFromParameter(value, pathIndex, keys, out marker, out plainText, out length))
                    {
                        return null;
                    }

                    break;
                default:
                    return null;
            }

            return EncryptUnderEveryKey(marker, plainText.AsSpan(0, length), pathIndex, keys);
        }
        finally
        {
            if (plainText is not null)
            {
                CryptographicOperations.ZeroMemory(plainText);
            }
        }
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
        byte[]? plainText = null;
        try
        {
            return TryFromParameter(value, pathIndex, keys, out TypeMarker marker, out plainText, out int length)
                ? EncryptUnderEveryKey(marker, plainText.AsSpan(0, length), pathIndex, keys, currentOnly: true)[0]
                : null;
        }
        finally
        {
            if (plainText is not null)
            {
                CryptographicOperations.ZeroMemory(plainText);
            }
        }
    }

    private string[] EncryptUnderEveryKey(TypeMarker marker, ReadOnlySpan<byte> plainText, int pathIndex, QueryKeyLeases keys, bool currentOnly = false)
    {
        var cipherTexts = new List<string>();
        foreach (string keyId in currentOnly ? _policy.ReadableKeyIds.Take(1) : _policy.ReadableKeyIds)
        {
            DataEncryptionKey key = keys.Get(keyId);
            byte[] encoded = new byte[EncryptedValueCodec.GetEncodedLength(key, plainText.Length)];
            int written = EncryptedValueCodec.Encode(key, marker, plainText, encoded, _policy.GetDeterministicPrefix(pathIndex));
            if (_policy.GetPath(pathIndex) == IdCellText.Path)
            {
                // As the id is stored (IdCellText); an id too long to be encrypted is refused, as a write would be.
                written = IdCellText.ToStored(encoded.AsSpan(0, written));
            }

            cipherTexts.Add(Encoding.ASCII.GetString(encoded, 0, written));
        }

        return [.. cipherTexts];
    }

    private (TypeMarker Marker, byte[] PlainText, int Length) FromLiteral(SqlLiteral literal, int pathIndex)
    {
        switch (literal.Kind)
        {
            case SqlLiteralKind.String:
                byte[] utf8 = Encoding.UTF8.GetBytes(literal.Text);
                return (TypeMarker.String, utf8, utf8.Length);
            case SqlLiteralKind.Boolean:
                return Scalar(TypeMarker.Boolean, literal.Text.Equals("true", StringComparison.OrdinalIgnoreCase) ? 1 : 0);
            default:
                if (literal.Text.StartsWith("0x", StringComparison.OrdinalIgnoreCase)
                    && long.TryParse(literal.Text.AsSpan(2), NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out long hex))
                {
                    return Scalar(TypeMarker.Long, hex);
                }

                return FromNumber(Encoding.ASCII.GetBytes(literal.Text), pathIndex);
        }
    }

    private bool TryFromParameter(object value, int pathIndex, QueryKeyLeases keys, out TypeMarker marker, out byte[] plainText, out int length)
    {
        if (value is string text && TryDecryptOwnCipherText(text, pathIndex, keys, out marker, out plainText, out length))
        {
            return true;
        }

        byte[] json = Serialize(value);
        try
        {
            var reader = new Utf8JsonReader(json);
            reader.Read();
            switch (reader.TokenType)
            {
                case JsonTokenType.Null:
                    (marker, plainText, length) = (default, [], 0);
                    return false;
                case JsonTokenType.String:
                    plainText = new byte[reader.HasValueSequence ? reader.ValueSequence.Length : reader.ValueSpan.Length];
                    length = reader.CopyString(plainText);
                    marker = TypeMarker.String;
                    return true;
                case JsonTokenType.True or JsonTokenType.False:
                    (marker, plainText, length) = Scalar(TypeMarker.Boolean, reader.TokenType == JsonTokenType.True ? 1 : 0);
                    return true;
                case JsonTokenType.Number:
                    (marker, plainText, length) = FromNumber(reader.ValueSpan.ToArray(), pathIndex);
                    return true;
                default:
                    JsonErrors.ThrowDeterministicContainer(_policy.GetPath(pathIndex), _policy.ReadableKeyIds.First());
                    throw new UnreachableException();
            }
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

    // A value AddParameterAsync encrypted for this path, under any accepted key: its plaintext.
    private bool TryDecryptOwnCipherText(string text, int pathIndex, QueryKeyLeases keys, out TypeMarker marker, out byte[] plainText, out int length)
    {
        (marker, plainText, length) = (default, [], 0);
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
            plainText = new byte[EncryptedValueCodec.GetMaxPlainTextLength(key, base64.Length)];
            if (EncryptedValueCodec.TryDecrypt(key, base64, blob, plainText, out marker, out length) == EncryptedValueStatus.Valid)
            {
                return true;
            }
        }

        return false;
    }

    // As the processors encrypt a number: an int64 when it parses as one, else a finite double; an integer
    // literal beyond int64 is refused rather than rounded.
    private (TypeMarker Marker, byte[] PlainText, int Length) FromNumber(byte[] text, int pathIndex)
    {
        if (long.TryParse(text, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out long integer))
        {
            return Scalar(TypeMarker.Long, integer);
        }

        bool isInteger = text.AsSpan().IndexOfAny((byte)'.', (byte)'e', (byte)'E') < 0;
        double value = 0;
        if (isInteger || !double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out value) || !double.IsFinite(value))
        {
            JsonErrors.ThrowNumberNotRepresentable(_policy.GetPath(pathIndex));
        }

        byte[] scalar = new byte[ScalarEncoding.Length];
        ScalarEncoding.WriteDouble(value, scalar);
        return (TypeMarker.Double, scalar, scalar.Length);
    }

    private static (TypeMarker Marker, byte[] PlainText, int Length) Scalar(TypeMarker marker, long value)
    {
        byte[] scalar = new byte[ScalarEncoding.Length];
        ScalarEncoding.WriteInt64(value, scalar);
        return (marker, scalar, scalar.Length);
    }
}
