// P/Invoke surface of OpenSSL 3 libcrypto used by the native AEAD backend (wire-format.md §1 primitives:
// AES-256-CBC through EVP_CIPHER_CTX, SHA-256 through the SHA256_* state functions for HMAC). Every argument is
// blittable, so the source generator emits direct calls without marshalling stubs.
// "*Short" entry points skip the GC transition. They are used only where the call is bounded (a fixed-size init
// or final, or at most ShortCallLimit bytes of input: well under a microsecond), never blocks and never calls
// back into the runtime; longer inputs go through the normal entry points so a GC never waits on them.
using System.Reflection;
using System.Runtime.InteropServices;

namespace Encryption.Custom.Native.OpenSsl;

/// <summary>The libcrypto 3 entry points the native backend calls, and the probe that says whether they exist.</summary>
internal static unsafe partial class LibCrypto
{
    /// <summary>The soname of OpenSSL 3's libcrypto; the same name .NET's own OpenSSL shim loads on Linux.</summary>
    public const string LibraryName = "libcrypto.so.3";

    /// <summary>The most input bytes a "*Short" call may be given.</summary>
    public const int ShortCallLimit = 1024;

    private const ulong MinimumVersion = 0x30000000UL;

    // SHA256_* are deprecated in OpenSSL 3 but exported by every 3.x libcrypto built with the default options;
    // a build without them fails the probe and the managed backend is used instead.
    private static readonly string[] s_requiredExports =
    [
        "OpenSSL_version_num", "ERR_clear_error",
        "EVP_aes_256_cbc", "EVP_CIPHER_CTX_new", "EVP_CIPHER_CTX_free", "EVP_CipherInit_ex2", "EVP_CIPHER_CTX_set_padding", "EVP_CipherUpdate",
        "SHA256_Init", "SHA256_Update", "SHA256_Final",
    ];

    private static readonly Lazy<bool> s_isAvailable = new(Probe);

    /// <summary>Whether libcrypto 3 loads and exports everything this backend calls.</summary>
    public static bool IsAvailable => s_isAvailable.Value;

    [LibraryImport(LibraryName)]
    public static partial ulong OpenSSL_version_num();

    [LibraryImport(LibraryName)]
    public static partial void ERR_clear_error();

    [LibraryImport(LibraryName)]
    public static partial nint EVP_aes_256_cbc();

    [LibraryImport(LibraryName)]
    public static partial nint EVP_CIPHER_CTX_new();

    [LibraryImport(LibraryName)]
    public static partial void EVP_CIPHER_CTX_free(nint ctx);

    [LibraryImport(LibraryName)]
    public static partial int EVP_CipherInit_ex2(nint ctx, nint cipher, byte* key, byte* iv, int enc, nint parameters);

    /// <summary>Only for an IV reset (cipher and key NULL): no fetch, no key schedule, a few dozen nanoseconds.</summary>
    [LibraryImport(LibraryName, EntryPoint = "EVP_CipherInit_ex2")]
    [SuppressGCTransition]
    public static partial int EVP_CipherInit_ex2Short(nint ctx, nint cipher, byte* key, byte* iv, int enc, nint parameters);

    [LibraryImport(LibraryName)]
    public static partial int EVP_CIPHER_CTX_set_padding(nint ctx, int padding);

    [LibraryImport(LibraryName)]
    public static partial int EVP_CipherUpdate(nint ctx, byte* output, int* outputLength, byte* input, int inputLength);

    [LibraryImport(LibraryName, EntryPoint = "EVP_CipherUpdate")]
    [SuppressGCTransition]
    public static partial int EVP_CipherUpdateShort(nint ctx, byte* output, int* outputLength, byte* input, int inputLength);

    [LibraryImport(LibraryName)]
    public static partial int SHA256_Init(byte* state);

    [LibraryImport(LibraryName)]
    public static partial int SHA256_Update(byte* state, byte* data, nuint length);

    [LibraryImport(LibraryName, EntryPoint = "SHA256_Update")]
    [SuppressGCTransition]
    public static partial int SHA256_UpdateShort(byte* state, byte* data, nuint length);

    /// <summary>At most two compression-function calls: always short.</summary>
    [LibraryImport(LibraryName, EntryPoint = "SHA256_Final")]
    [SuppressGCTransition]
    public static partial int SHA256_FinalShort(byte* digest, byte* state);

    private static bool Probe()
    {
        // Resolve exactly as the generated stubs will (same name, same assembly search rules), so "available"
        // means the calls below bind to the same library.
        Assembly assembly = typeof(LibCrypto).Assembly;
        if (!NativeLibrary.TryLoad(LibraryName, assembly, searchPath: null, out nint handle))
        {
            return false;
        }

        foreach (string export in s_requiredExports)
        {
            if (!NativeLibrary.TryGetExport(handle, export, out _))
            {
                return false;
            }
        }

        return OpenSSL_version_num() >= MinimumVersion;
    }
}
