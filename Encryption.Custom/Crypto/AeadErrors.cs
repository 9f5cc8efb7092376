// Throw helpers for the AEAD (wire-format.md §1: every authenticity or format failure looks the same).
// Messages are constants: they never carry key, plaintext or ciphertext bytes, and never say which check failed.
using System.Diagnostics.CodeAnalysis;
using System.Security.Cryptography;

namespace Encryption.Custom.Crypto;

/// <summary>The one place the crypto layer builds exceptions, so hot paths stay small and messages stay fixed.</summary>
internal static class AeadErrors
{
    /// <summary>The single message of every rejected ciphertext, whatever check rejected it.</summary>
    public const string InvalidCipherTextMessage = "The encrypted value is not valid for this data encryption key.";

    public static EncryptionException InvalidCipherText() =>
        new(EncryptionErrorKind.InvalidCipherText, InvalidCipherTextMessage);

    [DoesNotReturn]
    public static void ThrowInvalidCipherText() => throw InvalidCipherText();

    /// <summary>A bound cell whose tag fails under the binding it is read with: it was written for another place, or damaged.</summary>
    public const string BindingMismatchMessage =
        "The encrypted value does not belong at this document, path and container (it was moved or copied from elsewhere), or it is corrupted.";

    /// <summary>A format-3 cell where the binding requires a bound one.</summary>
    public const string NotBoundMessage =
        "The encrypted value is not bound to its document, but a bound value is required here.";

    /// <summary>The exception for a bound cell that did not verify (<paramref name="check"/> is not <see cref="AeadCellCheck.Valid"/>).</summary>
    public static EncryptionException BoundCellRejected(AeadCellCheck check) => check switch
    {
        AeadCellCheck.BindingMismatch => new(EncryptionErrorKind.CellBindingMismatch, BindingMismatchMessage),
        AeadCellCheck.NotBound => new(EncryptionErrorKind.CellBindingMismatch, NotBoundMessage),
        _ => InvalidCipherText(),
    };

    [DoesNotReturn]
    public static void ThrowInvalidAssociatedData(string paramName) =>
        throw new ArgumentException("The associated data of a bound cell must start with the bound version byte 0x02 and be at most 64 KiB.", paramName);

    [DoesNotReturn]
    public static void ThrowDestinationTooSmall(string paramName) =>
        throw new ArgumentException("The destination buffer is too small for the result.", paramName);

    [DoesNotReturn]
    public static void ThrowOverlappingBuffers(string paramName) =>
        throw new ArgumentException("The destination buffer must not overlap the source buffer.", paramName);

    [DoesNotReturn]
    public static void ThrowWrongKeySize(string paramName) =>
        throw new ArgumentException("The key must be exactly 32 bytes.", paramName);

    [DoesNotReturn]
    public static void ThrowLengthOutOfRange(string paramName) =>
        throw new ArgumentOutOfRangeException(paramName, "The length is negative or too large for a cell.");

    [DoesNotReturn]
    public static void ThrowUndefinedEnum(string paramName) =>
        throw new ArgumentOutOfRangeException(paramName, "The value is not a defined member of its enumeration.");

    [DoesNotReturn]
    public static void ThrowNativeAllocationFailure() =>
        throw new CryptographicException("OpenSSL could not allocate a cipher or digest context.");

    [DoesNotReturn]
    public static void ThrowCipherFailure() =>
        throw new CryptographicException("The cryptographic provider failed an AES or HMAC operation.");
}
