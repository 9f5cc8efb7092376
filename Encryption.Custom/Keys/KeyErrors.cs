using System.Diagnostics.CodeAnalysis;
using Encryption.Custom.Diagnostics;

namespace Encryption.Custom.Keys;

/// <summary>
/// The key layer's errors, in one place so messages stay uniform: each names the DEK id and the cause, never key
/// bytes. Throw helpers are <see cref="DoesNotReturnAttribute"/> so hot paths stay small.
/// </summary>
internal static class KeyErrors
{
    /// <summary>The one length every data encryption key has.</summary>
    public const int RawKeyLength = 32;

    [DoesNotReturn]
    public static void ThrowUnsupportedAlgorithm(string dataEncryptionKeyId, string encryptionAlgorithm) =>
        throw UnsupportedAlgorithm(dataEncryptionKeyId, encryptionAlgorithm);

    public static EncryptionException UnsupportedAlgorithm(string dataEncryptionKeyId, string encryptionAlgorithm) =>
        new(
            EncryptionErrorKind.InvalidOptions,
            $"Data encryption key '{UntrustedText.Shorten(dataEncryptionKeyId)}': the encryption algorithm '{UntrustedText.Shorten(encryptionAlgorithm)}' is not supported " +
            $"(use {CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized} or {CosmosEncryptionAlgorithm.AEAes256CbcHmacSha256Randomized}).",
            dataEncryptionKeyId);

    public static EncryptionException NotFound(string dataEncryptionKeyId, Exception? innerException) =>
        new(
            EncryptionErrorKind.KeyUnavailable,
            $"Data encryption key '{UntrustedText.Shorten(dataEncryptionKeyId)}' was not found in the data encryption key container.",
            dataEncryptionKeyId,
            innerException: innerException);

    public static EncryptionException UnwrapFailed(string dataEncryptionKeyId, Exception innerException) =>
        new(
            EncryptionErrorKind.KeyUnavailable,
            $"Data encryption key '{UntrustedText.Shorten(dataEncryptionKeyId)}' is unavailable: unwrapping it with the key-encryption key failed ({Describe(innerException)}).",
            dataEncryptionKeyId,
            innerException: innerException);

    public static EncryptionException WrapFailed(string dataEncryptionKeyId, Exception innerException) =>
        new(
            EncryptionErrorKind.KeyUnavailable,
            $"Data encryption key '{UntrustedText.Shorten(dataEncryptionKeyId)}' could not be wrapped with the key-encryption key ({Describe(innerException)}).",
            dataEncryptionKeyId,
            innerException: innerException);

    public static EncryptionException ReadFailed(string dataEncryptionKeyId, Exception innerException) =>
        new(
            EncryptionErrorKind.KeyUnavailable,
            $"Data encryption key '{UntrustedText.Shorten(dataEncryptionKeyId)}' is unavailable: reading it from the data encryption key container failed ({Describe(innerException)}).",
            dataEncryptionKeyId,
            innerException: innerException);

    public static EncryptionException WrongLength(string dataEncryptionKeyId, int length) =>
        new(
            EncryptionErrorKind.KeyUnavailable,
            $"Data encryption key '{UntrustedText.Shorten(dataEncryptionKeyId)}' unwrapped to {length} bytes instead of {RawKeyLength}: the wrapped key or the key-encryption key is wrong.",
            dataEncryptionKeyId);

    public static EncryptionException WrapNotVerified(string dataEncryptionKeyId) =>
        new(
            EncryptionErrorKind.KeyUnavailable,
            $"Data encryption key '{UntrustedText.Shorten(dataEncryptionKeyId)}': the wrapped key did not unwrap to the same key, so it was not stored. Check the key-encryption key and its provider.",
            dataEncryptionKeyId);

    public static EncryptionException InvalidDocument(string? dataEncryptionKeyId, string problem, Exception? innerException = null) =>
        new(
            EncryptionErrorKind.KeyUnavailable,
            dataEncryptionKeyId is null
                ? $"A data encryption key document is invalid: {problem}."
                : $"The document of data encryption key '{UntrustedText.Shorten(dataEncryptionKeyId)}' is invalid: {problem}.",
            dataEncryptionKeyId,
            innerException: innerException);

    public static EncryptionException WriteUnconfirmed(string dataEncryptionKeyId, Exception innerException) =>
        new(
            EncryptionErrorKind.KeyUnavailable,
            $"Data encryption key '{UntrustedText.Shorten(dataEncryptionKeyId)}' was written (the service answered with success), but the answer could not be read ({Describe(innerException)}) and the document stored now is not the one written: another writer changed it since. Read it to see what is stored.",
            dataEncryptionKeyId,
            innerException: innerException);

    public static EncryptionException RewrapConflict(string dataEncryptionKeyId, int attempts, Exception innerException) =>
        new(
            EncryptionErrorKind.KeyUnavailable,
            $"Data encryption key '{UntrustedText.Shorten(dataEncryptionKeyId)}' could not be rewrapped: it was changed by another writer during each of {attempts} attempts (HTTP 412). Retry the rewrap later.",
            dataEncryptionKeyId,
            innerException: innerException);

    /// <summary>A short, secret-free description of a cause: its type and the first line of its message.</summary>
    public static string Describe(Exception exception)
    {
        string message = exception.Message;
        int newline = message.AsSpan().IndexOfAny('\r', '\n');
        return $"{exception.GetType().Name}: {(newline < 0 ? message : message[..newline])}";
    }
}
