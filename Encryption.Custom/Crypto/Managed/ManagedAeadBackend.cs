// The portable AEAD backend (wire-format.md §1 over BCL primitives), used where OpenSSL 3 libcrypto is absent.
namespace Encryption.Custom.Crypto.Managed;

/// <summary>Makes BCL-backed primitives; works on every platform .NET supports.</summary>
internal sealed class ManagedAeadBackend : AeadBackend
{
    private ManagedAeadBackend()
    {
    }

    public static ManagedAeadBackend Instance { get; } = new();

    public override string Name => "Managed";

    public override CbcCipher CreateCbcCipher(ReadOnlySpan<byte> key, bool encrypting) => ManagedCbcCipher.Create(key, encrypting);

    public override HmacSha256 CreateHmac(ReadOnlySpan<byte> key) => new ManagedHmacSha256(key);
}
