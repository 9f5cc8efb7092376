// The portable AEAD backend (wire-format.md §1 over BCL primitives), used where OpenSSL 3 libcrypto is absent.
namespace Encryption.Custom.Crypto.Managed;

/// <summary>Creates <see cref="ManagedAeadContext"/>s; works on every platform .NET supports.</summary>
internal sealed class ManagedAeadBackend : AeadBackend
{
    private ManagedAeadBackend()
    {
    }

    public static ManagedAeadBackend Instance { get; } = new();

    public override string Name => "Managed";

    public override AeadContext CreateContext(AeadKeySource keySource) => new ManagedAeadContext(keySource);
}
