using System.Diagnostics.CodeAnalysis;
using System.Globalization;

namespace Encryption.Custom.Json;

/// <summary>
/// The read side of a <see cref="ContainerEncryptionPolicy"/>, shared by both processors so they agree: which keys
/// a document may be encrypted with, and what a plaintext value in a policy path does (count it; fail in
/// <see cref="PlaintextPolicy.WriteEncryptedForbidPlaintext"/>). The processors find the plaintext as a by-product
/// of the scan they make anyway; this type only decides.
/// </summary>
internal static class PolicyReadCheck
{
    /// <summary>Checks the key an encrypted document names, before the key is loaded, and counts the read.</summary>
    /// <exception cref="EncryptionException"><see cref="EncryptionErrorKind.KeyNotAccepted"/>.</exception>
    public static void CheckKey(ContainerEncryptionPolicy policy, string dataEncryptionKeyId)
    {
        if (!policy.AcceptsKey(dataEncryptionKeyId))
        {
            ThrowKeyNotAccepted(dataEncryptionKeyId);
        }

        EncryptionTelemetry.RecordPolicyRead(dataEncryptionKeyId);
    }

    /// <summary>Whether a found plaintext value must be reported (counted, and refused when the policy forbids it).</summary>
    public static bool Wants(ContainerEncryptionPolicy? policy) =>
        policy is not null && (policy.PlaintextPolicy == PlaintextPolicy.WriteEncryptedForbidPlaintext || EncryptionTelemetry.PlaintextDocuments.Enabled);

    /// <summary>A document holds plaintext at <paramref name="path"/>: counts it, and throws when the policy forbids plaintext.</summary>
    /// <param name="policy">The container's policy.</param>
    /// <param name="path">The policy path holding plaintext.</param>
    /// <param name="id">The document id when known and not added by a feed wrapper, else <see langword="null"/>.</param>
    /// <exception cref="EncryptionException"><see cref="EncryptionErrorKind.PlaintextForbidden"/>.</exception>
    public static void OnPlaintext(ContainerEncryptionPolicy policy, string path, string? id)
    {
        EncryptionTelemetry.RecordPlaintextDocument();
        if (policy.PlaintextPolicy == PlaintextPolicy.WriteEncryptedForbidPlaintext)
        {
            string which = id is null ? "The document" : string.Create(CultureInfo.InvariantCulture, $"The document '{id}'");
            throw new EncryptionException(
                EncryptionErrorKind.PlaintextForbidden,
                $"{which} holds a plaintext value at '{path}', which the container's encryption policy requires to be encrypted (plaintext is forbidden).",
                policy.DataEncryptionKeyId,
                path);
        }
    }

    [DoesNotReturn]
    private static void ThrowKeyNotAccepted(string dataEncryptionKeyId) =>
        throw new EncryptionException(
            EncryptionErrorKind.KeyNotAccepted,
            $"The document is encrypted with the data encryption key '{dataEncryptionKeyId}', which the container's encryption policy does not accept (add it to AcceptedDataEncryptionKeyIds during a rotation).",
            dataEncryptionKeyId);
}
