namespace Encryption.Custom.Json.Rules;

/// <summary>The keys of a compiled policy: the one writes encrypt with, its algorithm, and the others documents may be encrypted with.</summary>
/// <param name="DataEncryptionKeyId">The key writes encrypt with.</param>
/// <param name="EncryptionAlgorithm">The algorithm.</param>
/// <param name="AcceptedKeyIds">The other keys documents may be encrypted with (during a rotation).</param>
internal sealed record PolicyKeys(string DataEncryptionKeyId, string EncryptionAlgorithm, IEnumerable<string> AcceptedKeyIds);

/// <summary>What reads and writes under a compiled policy do.</summary>
/// <param name="ForbidsPlaintext">Whether reads refuse plaintext at a policy path (else they count it).</param>
/// <param name="EncryptsWrites">Whether writes that ask for nothing are encrypted by the rules.</param>
/// <param name="Binds">Whether values are bound to their document.</param>
/// <param name="Commits">Whether documents carry the document commitment (needs <paramref name="Binds"/>).</param>
internal readonly record struct PolicyModes(bool ForbidsPlaintext, bool EncryptsWrites, bool Binds = false, bool Commits = false);
