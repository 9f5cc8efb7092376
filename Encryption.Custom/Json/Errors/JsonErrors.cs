using System.Diagnostics.CodeAnalysis;
using System.Globalization;
using System.Text;
using System.Text.Json;
using Encryption.Custom.Diagnostics;

namespace Encryption.Custom.Json.Errors;

/// <summary>
/// Every error the JSON layer raises, in one place. Messages name the DEK id, the path and positions, never key
/// bytes, plaintext or ciphertext (not even one character of the document: reader exceptions are not wrapped).
/// The <c>Throw*</c> members keep hot paths small; the <c>Create*</c> members serve per-item reporting.
/// </summary>
internal static class JsonErrors
{
    [DoesNotReturn]
    public static void ThrowMalformed(JsonException exception) => throw CreateMalformed(exception);

    public static EncryptionException CreateMalformed(JsonException exception)
    {
        // The reader's own message quotes the offending character, which may be plaintext: keep only positions.
        string where = exception.LineNumber is long line && exception.BytePositionInLine is long column
            ? string.Create(CultureInfo.InvariantCulture, $" (line {line + 1}, byte {column + 1})")
            : string.Empty;
        return new EncryptionException(EncryptionErrorKind.MalformedDocument, "The document is not valid JSON" + where + ".");
    }

    [DoesNotReturn]
    public static void ThrowMalformed(string message) =>
        throw new EncryptionException(EncryptionErrorKind.MalformedDocument, message);

    [DoesNotReturn]
    public static void ThrowNotUtf8(long offset) =>
        throw new EncryptionException(
            EncryptionErrorKind.MalformedDocument,
            string.Create(CultureInfo.InvariantCulture, $"The document is not valid UTF-8 (byte {offset + 1})."));

    [DoesNotReturn]
    public static void ThrowRootNotObject() =>
        throw new EncryptionException(EncryptionErrorKind.MalformedDocument, "The document's root must be a JSON object.");

    [DoesNotReturn]
    public static void ThrowReservedQueryTokens() =>
        throw new EncryptionException(
            EncryptionErrorKind.MalformedDocument,
            "The document already has a top-level '_q' property, which an encryption policy with range or prefix queries reserves for query tokens: it is already encrypted, or it uses the reserved name.");

    [DoesNotReturn]
    public static void ThrowAlreadyEncrypted() =>
        throw new EncryptionException(
            EncryptionErrorKind.MalformedDocument,
            "The document already has a top-level '_ei' property: it is already encrypted, or it uses the reserved name.");

    [DoesNotReturn]
    public static void ThrowDuplicateProperty(string path) =>
        throw new EncryptionException(
            EncryptionErrorKind.MalformedDocument,
            $"The property '{path}' appears more than once at the top level of the document.",
            path: path);

    [DoesNotReturn]
    public static void ThrowDuplicateProperty(ReadOnlySpan<byte> utf8Name) => ThrowDuplicateProperty(ToPath(utf8Name));

    [DoesNotReturn]
    public static void ThrowNumberNotRepresentable(string path) =>
        throw new EncryptionException(
            EncryptionErrorKind.LimitExceeded,
            $"The number at '{path}' cannot be encrypted: integers must fit in a signed 64-bit integer and other numbers in a finite double.",
            path: path);

    [DoesNotReturn]
    public static void ThrowNumberBeyondDouble() =>
        throw new EncryptionException(
            EncryptionErrorKind.LimitExceeded,
            "The document holds a number beyond the range of a double, which the Newtonsoft processor cannot keep (the stream processor copies it unchanged).");

    [DoesNotReturn]
    public static void ThrowUnsupportedValue(string path) =>
        throw new EncryptionException(
            EncryptionErrorKind.InvalidOptions,
            $"The value at '{path}' has a JSON type that cannot be encrypted.",
            path: path);

    [DoesNotReturn]
    public static void ThrowDeterministicContainer(string path, string dataEncryptionKeyId) =>
        throw new EncryptionException(
            EncryptionErrorKind.InvalidOptions,
            $"The value at '{path}' is a JSON object or array, but the path is encrypted deterministically: only strings, numbers and booleans can be (the text of an object or array is not canonical, so equal values could encrypt differently). Encrypt the path randomized, or encrypt its scalar parts.",
            dataEncryptionKeyId,
            path);

    [DoesNotReturn]
    public static void ThrowDocumentTooLarge(long maxLength) =>
        throw new EncryptionException(
            EncryptionErrorKind.LimitExceeded,
            string.Create(CultureInfo.InvariantCulture, $"The document is larger than the configured maximum of {maxLength} bytes."));

    [DoesNotReturn]
    public static void ThrowEncryptedDocumentTooLarge(long maxLength) =>
        throw new EncryptionException(
            EncryptionErrorKind.LimitExceeded,
            string.Create(CultureInfo.InvariantCulture, $"The encrypted document would be larger than the configured maximum of {maxLength} bytes, which decryption applies to its input."));

    [DoesNotReturn]
    public static void ThrowTooDeep(int maxDepth) => throw CreateTooDeep(maxDepth);

    public static EncryptionException CreateTooDeep(int maxDepth) =>
        new(
            EncryptionErrorKind.LimitExceeded,
            string.Create(CultureInfo.InvariantCulture, $"The document is nested deeper than the configured maximum depth of {maxDepth}."));

    [DoesNotReturn]
    public static void ThrowInvalidPath(string? path, string reason) =>
        throw new EncryptionException(
            EncryptionErrorKind.InvalidOptions,
            path is null ? $"A path to encrypt is invalid: {reason}" : $"The path to encrypt '{Echo(path)}' is invalid: {reason}",
            path: path);

    [DoesNotReturn]
    public static void ThrowCaseVariant(string propertyPath, string path, string dataEncryptionKeyId) =>
        throw new EncryptionException(
            EncryptionErrorKind.InvalidOptions,
            $"The document's property '{Echo(propertyPath)}' differs from the path to encrypt '{Echo(path)}' only in case: property names are case-sensitive, so it would be stored in plaintext (check the serializer's naming policy). Nothing was encrypted.",
            dataEncryptionKeyId,
            path);

    [DoesNotReturn]
    public static void ThrowInvalidOptions(string message, string? dataEncryptionKeyId = null) =>
        throw new EncryptionException(EncryptionErrorKind.InvalidOptions, message, dataEncryptionKeyId);

    [DoesNotReturn]
    public static void ThrowKeyAlgorithmMismatch(string keyAlgorithm, string requested, string? dataEncryptionKeyId) =>
        throw new EncryptionException(
            EncryptionErrorKind.KeyUnavailable,
            $"The data encryption key is for the algorithm '{keyAlgorithm}', but '{requested}' was requested.",
            dataEncryptionKeyId);

    [DoesNotReturn]
    public static void ThrowKeyMissing(string dataEncryptionKeyId) =>
        throw new EncryptionException(
            EncryptionErrorKind.KeyUnavailable,
            $"The encryptor returned no data encryption key for '{Echo(dataEncryptionKeyId)}'.",
            dataEncryptionKeyId);

    [DoesNotReturn]
    public static void ThrowMalformedEnvelope(string detail) => throw CreateMalformedEnvelope(detail);

    public static EncryptionException CreateMalformedEnvelope(string detail) =>
        new(EncryptionErrorKind.MalformedDocument, $"The encryption metadata '_ei' is malformed: {detail}");

    [DoesNotReturn]
    public static void ThrowUnsupportedFormatVersion(long formatVersion) =>
        throw new EncryptionException(
            EncryptionErrorKind.UnsupportedFormat,
            string.Create(CultureInfo.InvariantCulture, $"The encryption format version {formatVersion} is not supported (supported: 2 to read, 3 to read and write)."));

    [DoesNotReturn]
    public static void ThrowUnsupportedAlgorithm(string algorithm, long formatVersion) =>
        throw new EncryptionException(
            EncryptionErrorKind.UnsupportedFormat,
            string.Create(CultureInfo.InvariantCulture, $"The encryption algorithm '{Echo(algorithm)}' is not supported with format version {formatVersion}."));

    [DoesNotReturn]
    public static void ThrowUnsupportedAlgorithm(ReadOnlySpan<byte> utf8Algorithm, long formatVersion) =>
        ThrowUnsupportedAlgorithm(Encoding.UTF8.GetString(utf8Algorithm), formatVersion);

    public static EncryptionException CreateInvalidValue(EncryptedValueStatus status, string? path, string dataEncryptionKeyId)
    {
        if (status == EncryptedValueStatus.NotAuthentic)
        {
            // One fixed message whichever check failed (wrong key, tampering, truncation): no oracle.
            return new EncryptionException(
                EncryptionErrorKind.InvalidCipherText,
                path is null
                    ? $"The encrypted data could not be decrypted with the data encryption key '{Echo(dataEncryptionKeyId)}'."
                    : $"The value at '{path}' could not be decrypted with the data encryption key '{Echo(dataEncryptionKeyId)}'.",
                dataEncryptionKeyId,
                path);
        }

        if (status is EncryptedValueStatus.BindingMismatch or EncryptedValueStatus.NotBound)
        {
            // A bound cell verifies under exactly one document, path and container: a failing tag cannot say whether
            // the value was moved here or damaged, so the message says both (wire-format.md "Bound cells").
            string where = path is null ? "here" : $"at '{path}'";
            return new EncryptionException(
                EncryptionErrorKind.CellBindingMismatch,
                status == EncryptedValueStatus.NotBound
                    ? $"The encrypted value {where} is not bound to its document, but this document's values must be bound (it may have been copied from an unbound document)."
                    : $"The encrypted value {where} does not belong to this document, path and container (it was moved or copied from elsewhere), or it is corrupted.",
                dataEncryptionKeyId,
                path);
        }

        string detail = status switch
        {
            EncryptedValueStatus.InvalidBase64 => "it is not standard padded base64 of a type marker and a cell",
            EncryptedValueStatus.UnknownMarker => "its type marker is unknown",
            EncryptedValueStatus.InvalidLengthForMarker => "its plaintext length does not match its type marker",
            _ => "it is not valid",
        };
        return new EncryptionException(
            EncryptionErrorKind.InvalidEncryptedValue,
            $"The encrypted value at '{path}' cannot be decrypted: {detail}.",
            dataEncryptionKeyId,
            path);
    }

    [DoesNotReturn]
    public static void ThrowInvalidValue(EncryptedValueStatus status, ReadOnlySpan<byte> utf8Name, string dataEncryptionKeyId) =>
        throw CreateInvalidValue(status, ToPath(utf8Name), dataEncryptionKeyId);

    [DoesNotReturn]
    public static void ThrowInvalidPlainText(string path, string dataEncryptionKeyId, string expected) =>
        throw new EncryptionException(
            EncryptionErrorKind.InvalidEncryptedValue,
            $"The encrypted value at '{path}' decrypted to something that is not {expected}.",
            dataEncryptionKeyId,
            path);

    [DoesNotReturn]
    public static void ThrowInvalidPlainText(ReadOnlySpan<byte> utf8Name, string dataEncryptionKeyId, string expected) =>
        ThrowInvalidPlainText(ToPath(utf8Name), dataEncryptionKeyId, expected);

    [DoesNotReturn]
    public static void ThrowNotAnEncryptedString(ReadOnlySpan<byte> utf8Name, string dataEncryptionKeyId) =>
        ThrowNotAnEncryptedString(ToPath(utf8Name), dataEncryptionKeyId);

    [DoesNotReturn]
    public static void ThrowNotAnEncryptedString(string path, string dataEncryptionKeyId) =>
        throw new EncryptionException(
            EncryptionErrorKind.InvalidEncryptedValue,
            $"The value at '{path}' is listed as encrypted but is not a JSON string.",
            dataEncryptionKeyId,
            path);

    /// <summary>Wraps a per-document failure inside a feed page, naming the document.</summary>
    public static EncryptionException CreateFeedItem(EncryptionException inner, string? id, int index)
    {
        string which = id is null
            ? string.Create(CultureInfo.InvariantCulture, $"at index {index}")
            : string.Create(CultureInfo.InvariantCulture, $"'{Echo(id)}' (index {index})");
        return new EncryptionException(
            inner.Kind,
            $"The document {which} of the feed page could not be decrypted: {inner.Message}",
            inner.DataEncryptionKeyId,
            inner.Path,
            inner);
    }

    /// <summary>"/" followed by the UTF-8 property name.</summary>
    public static string ToPath(ReadOnlySpan<byte> utf8Name) => "/" + Encoding.UTF8.GetString(utf8Name);

    // Names and values echoed from a document are not secret, but keep messages short.
    private static string Echo(string value) => UntrustedText.Shorten(value);
}
