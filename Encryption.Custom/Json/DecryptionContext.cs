namespace Encryption.Custom;

/// <summary>Metadata about a decryption, produced only when the caller asks for it.</summary>
public sealed class DecryptionContext
{
    /// <summary>Creates the context.</summary>
    /// <param name="decryptionInfoList">One entry per data encryption key used (one per document today).</param>
    /// <exception cref="ArgumentNullException"><paramref name="decryptionInfoList"/> is null.</exception>
    public DecryptionContext(IReadOnlyList<DecryptionInfo> decryptionInfoList)
    {
        ArgumentNullException.ThrowIfNull(decryptionInfoList);
        DecryptionInfoList = decryptionInfoList;
    }

    /// <summary>What was decrypted, per data encryption key.</summary>
    public IReadOnlyList<DecryptionInfo> DecryptionInfoList { get; }
}
