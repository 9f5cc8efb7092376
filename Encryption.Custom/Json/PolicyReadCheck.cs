using System.Diagnostics.CodeAnalysis;
using System.Globalization;
using Encryption.Custom.Diagnostics;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json;

/// <summary>
/// The read side of a compiled container policy (<see cref="PolicyRuleSet"/>), shared by both processors so they
/// agree: which keys a document may be encrypted with, what a plaintext value at a policy path does (count it; fail
/// in strict mode), and what a value shaped like ciphertext that the metadata does not list does (always fail). The
/// processors find these values as a by-product of the scan they make anyway; this type only decides.
/// </summary>
internal static class PolicyReadCheck
{
    /// <summary>Checks the key an encrypted document names, before the key is loaded, and counts the read.</summary>
    /// <exception cref="EncryptionException"><see cref="EncryptionErrorKind.KeyNotAccepted"/>.</exception>
    public static void CheckKey(PolicyRuleSet rules, string dataEncryptionKeyId)
    {
        if (!rules.AcceptsKey(dataEncryptionKeyId))
        {
            ThrowKeyNotAccepted(dataEncryptionKeyId);
        }

        EncryptionTelemetry.RecordPolicyRead(dataEncryptionKeyId);
    }

    /// <summary>A document holds plaintext at <paramref name="path"/>: counts it, and throws when the rules forbid plaintext.</summary>
    /// <param name="rules">The container's compiled policy.</param>
    /// <param name="path">The policy path the plaintext is at.</param>
    /// <param name="id">The document id when known and not added by a feed wrapper, else <see langword="null"/>.</param>
    /// <exception cref="EncryptionException"><see cref="EncryptionErrorKind.PlaintextForbidden"/>.</exception>
    public static void OnPlaintext(PolicyRuleSet rules, string path, string? id)
    {
        EncryptionTelemetry.RecordPlaintextDocument();
        if (rules.ForbidsPlaintext)
        {
            throw new EncryptionException(
                EncryptionErrorKind.PlaintextForbidden,
                $"{Which(id)} holds a plaintext value at '{path}', which the container's encryption policy requires to be encrypted (plaintext is forbidden).",
                rules.DataEncryptionKeyId,
                path);
        }
    }

    /// <summary>
    /// A value at <paramref name="path"/> that the metadata does not list is shaped like a format 3 encrypted value
    /// (<see cref="EncryptedCell.IsCellShaped"/>): it is never plaintext. Throws in every mode:
    /// <see cref="EncryptionErrorKind.UnlistedCipherText"/> when one of the policy's keys authenticates it (the
    /// metadata was lost), <see cref="EncryptionErrorKind.InvalidCipherText"/> when none does (tampered or foreign),
    /// <see cref="EncryptionErrorKind.KeyUnavailable"/> when a key that might could not be loaded.
    /// </summary>
    /// <param name="rules">The container's compiled policy.</param>
    /// <param name="encryptor">Supplies the policy's keys.</param>
    /// <param name="path">The policy path the value is at.</param>
    /// <param name="base64">The unescaped string value.</param>
    /// <param name="id">The document id when known and not added by a feed wrapper, else <see langword="null"/>.</param>
    /// <param name="envelopeMissing">Whether the document carries the format 101 anchor but no <c>_ei</c> (see <see cref="CreateCellError"/>).</param>
    [DoesNotReturn]
    public static void OnCellShapedValue(PolicyRuleSet rules, Encryptor encryptor, string path, ReadOnlySpan<byte> base64, string? id, bool envelopeMissing = false)
    {
        string? keyId = EncryptedCell.FindAuthenticatingKey(encryptor, rules.ReadableKeyIds, rules.EncryptionAlgorithm, base64, out string? unavailable);
        throw CreateCellError(rules, path, id, keyId, unavailable, envelopeMissing);
    }

    /// <summary>
    /// The error of <see cref="OnCellShapedValue"/> once the authenticating key is known (or none is). With
    /// <paramref name="envelopeMissing"/> (a document without <c>_ei</c> that still carries the anchor <c>_ex</c>
    /// only format 101 writes) the error says the envelope metadata is missing, whatever the keys found: a bound
    /// cell's MAC covers the selector and document its metadata describe, so without <c>_ei</c> no key
    /// authenticates it and it used to be reported as tampered or under another key, sending the operator after
    /// the wrong cause. It stays a refusal (<see cref="EncryptionErrorKind.UnlistedCipherText"/>, as for lost
    /// format 3 metadata): the anchor says what was lost, not that the values are intact.
    /// </summary>
    public static EncryptionException CreateCellError(PolicyRuleSet rules, string path, string? id, string? authenticatingKeyId, string? unavailableKeyId, bool envelopeMissing = false)
    {
        if (envelopeMissing)
        {
            return new EncryptionException(
                EncryptionErrorKind.UnlistedCipherText,
                $"{Which(id)} carries the format {EncryptionEnvelope.ExtendedFormatVersion} anchor '{EncryptionEnvelope.AnchorName}' but not its encryption metadata '{EncryptionEnvelope.PropertyName}': the envelope metadata is missing (removed, for example by a writer without encryption), so the encrypted value at '{path}' can be neither checked nor read. It is refused, never taken for plaintext; restore '{EncryptionEnvelope.PropertyName}' or rewrite the document.",
                authenticatingKeyId ?? rules.DataEncryptionKeyId,
                path);
        }

        if (authenticatingKeyId is not null)
        {
            return new EncryptionException(
                EncryptionErrorKind.UnlistedCipherText,
                $"{Which(id)} holds an encrypted value at '{path}' (authenticated by the key '{authenticatingKeyId}') that its encryption metadata does not list: the metadata was lost, for example by a writer without encryption. It is neither returned nor encrypted again; restore the metadata or rewrite the value.",
                authenticatingKeyId,
                path);
        }

        if (unavailableKeyId is not null)
        {
            return new EncryptionException(
                EncryptionErrorKind.KeyUnavailable,
                $"{Which(id)} holds a value at '{path}' shaped like an encrypted value that its encryption metadata does not list, and the key '{unavailableKeyId}' that might have written it is unavailable: it is refused.",
                unavailableKeyId,
                path);
        }

        return new EncryptionException(
            EncryptionErrorKind.InvalidCipherText,
            $"{Which(id)} holds a value at '{path}' shaped like an encrypted value that no key of the container's encryption policy authenticates (tampered, or written under another key): it is refused, never taken for plaintext.",
            rules.DataEncryptionKeyId,
            path);
    }

    /// <summary>
    /// An encrypted document is in an older format than the policy requires (format 3 where nested selectors need
    /// 101): in strict mode it is refused, since whatever the newer format protects could have been stripped.
    /// </summary>
    /// <exception cref="EncryptionException"><see cref="EncryptionErrorKind.UnsupportedFormat"/>.</exception>
    [DoesNotReturn]
    public static void ThrowDowngrade(PolicyRuleSet rules, EnvelopeFormat format, string? id) =>
        throw new EncryptionException(
            EncryptionErrorKind.UnsupportedFormat,
            string.Create(CultureInfo.InvariantCulture, $"{Which(id)} is encrypted in format {(int)format}, but the container's encryption policy {(rules.Plan.NestedSelectors.ChildCount > 0 ? "has nested selectors" : "binds values to their document")}, which format {EncryptionEnvelope.ExtendedFormatVersion} records: reading it would accept a downgrade, which plaintext being forbidden refuses (rewrite the document, or read in a mode that accepts plaintext while migrating)."),
            rules.DataEncryptionKeyId);

    [DoesNotReturn]
    public static void ThrowBindingDowngrade(PolicyRuleSet rules, string? id) =>
        throw new EncryptionException(
            EncryptionErrorKind.UnsupportedFormat,
            $"{Which(id)} is encrypted without binding ('bind' missing from '_ev.crit'), but the container's encryption policy binds values to their document: reading it would accept a downgrade, which plaintext being forbidden refuses (rewrite the document, or read in a mode that accepts plaintext while migrating).",
            rules.DataEncryptionKeyId);

    /// <summary>Refuses a document written without the document commitment under a policy that commits (strict mode).</summary>
    [DoesNotReturn]
    public static void ThrowCommitmentDowngrade(PolicyRuleSet rules, string? id) =>
        throw new EncryptionException(
            EncryptionErrorKind.UnsupportedFormat,
            $"{Which(id)} is encrypted without the document commitment ('commit' missing from '_ev.crit'), but the container's encryption policy commits: reading it would accept a downgrade, which plaintext being forbidden refuses (rewrite the document, or read in a mode that accepts plaintext while migrating).",
            rules.DataEncryptionKeyId);

    [DoesNotReturn]
    public static void ThrowQueryTokenDowngrade(PolicyRuleSet rules, string? id) =>
        throw new EncryptionException(
            EncryptionErrorKind.UnsupportedFormat,
            $"{Which(id)} is encrypted without query tokens ('qt' missing from '_ev.crit'), but the container's encryption policy declares range or prefix queries: its range and prefix queries would silently miss it, which plaintext being forbidden refuses (rewrite the document, or read in a mode that accepts plaintext while migrating).",
            rules.DataEncryptionKeyId);

    private static string Which(string? id) =>
        id is null ? "The document" : string.Create(CultureInfo.InvariantCulture, $"The document '{UntrustedText.Shorten(id)}'");

    [DoesNotReturn]
    private static void ThrowKeyNotAccepted(string dataEncryptionKeyId) =>
        throw new EncryptionException(
            EncryptionErrorKind.KeyNotAccepted,
            $"The document is encrypted with the data encryption key '{dataEncryptionKeyId}', which the container's encryption policy does not accept (add it to AcceptedDataEncryptionKeyIds during a rotation).",
            dataEncryptionKeyId);
}
