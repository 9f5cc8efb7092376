using Encryption.Custom.Crypto;
using Encryption.Custom.Crypto.Managed;
using Encryption.Custom.Native.OpenSsl;

namespace Encryption.Custom.Tests.Crypto;

/// <summary>The AEAD backends every contract test runs against.</summary>
public enum AeadBackendKind
{
    OpenSsl,
    Managed,
}

/// <summary>Theory data and factories over <see cref="AeadBackendKind"/>.</summary>
internal static class AeadBackends
{
    public static TheoryData<AeadBackendKind> All => new(AeadBackendKind.OpenSsl, AeadBackendKind.Managed);

    /// <summary>Every backend with both IV modes (true = deterministic: the enum is internal, theory arguments are public).</summary>
    public static TheoryData<AeadBackendKind, bool> AllWithIvModes => new()
    {
        { AeadBackendKind.OpenSsl, false },
        { AeadBackendKind.OpenSsl, true },
        { AeadBackendKind.Managed, false },
        { AeadBackendKind.Managed, true },
    };

    public static AeadIvMode IvMode(bool deterministic) => deterministic ? AeadIvMode.Deterministic : AeadIvMode.Randomized;

    /// <summary>The backend, or a visible skip where libcrypto 3 cannot be loaded (Windows, macOS).</summary>
    public static AeadBackend Get(AeadBackendKind kind)
    {
        if (kind == AeadBackendKind.OpenSsl)
        {
            if (!OpenSslAeadBackend.IsSupported)
            {
                Assert.Skip("OpenSSL 3 libcrypto is not available on this machine.");
            }

            return OpenSslAeadBackend.Instance;
        }

        return ManagedAeadBackend.Instance;
    }

    public static AeadAes256CbcHmacSha256 Create(AeadBackendKind kind, AeadKeySource keySource, int? maxIdleContexts = null) =>
        new(keySource, Get(kind), maxIdleContexts);
}
