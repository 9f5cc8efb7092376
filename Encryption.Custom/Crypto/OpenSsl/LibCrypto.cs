// P/Invoke surface of OpenSSL 3 libcrypto used by the native AEAD backend (wire-format.md §1 primitives:
// AES-256-CBC through EVP_CIPHER_CTX, SHA-256 through EVP_MD_CTX for HMAC). Every pointer argument is blittable,
// so the source generator emits direct calls without marshalling stubs.
using System.Reflection;
using System.Runtime.InteropServices;

namespace Encryption.Custom.Crypto.OpenSsl;

/// <summary>The libcrypto 3 entry points the native backend calls, and the probe that says whether they exist.</summary>
internal static unsafe partial class LibCrypto
{
    /// <summary>The soname of OpenSSL 3's libcrypto; the same name .NET's own OpenSSL shim loads on Linux.</summary>
    public const string LibraryName = "libcrypto.so.3";

    private const ulong MinimumVersion = 0x30000000UL;

    private static readonly string[] s_requiredExports =
    [
        "OpenSSL_version_num", "ERR_clear_error",
        "EVP_aes_256_cbc", "EVP_CIPHER_CTX_new", "EVP_CIPHER_CTX_free", "EVP_CipherInit_ex2", "EVP_CIPHER_CTX_set_padding", "EVP_CipherUpdate",
        "EVP_sha256", "EVP_MD_CTX_new", "EVP_MD_CTX_free", "EVP_DigestInit_ex", "EVP_DigestUpdate", "EVP_DigestFinal_ex", "EVP_MD_CTX_copy_ex",
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

    [LibraryImport(LibraryName)]
    public static partial int EVP_CIPHER_CTX_set_padding(nint ctx, int padding);

    [LibraryImport(LibraryName)]
    public static partial int EVP_CipherUpdate(nint ctx, byte* output, int* outputLength, byte* input, int inputLength);

    [LibraryImport(LibraryName)]
    public static partial nint EVP_sha256();

    [LibraryImport(LibraryName)]
    public static partial nint EVP_MD_CTX_new();

    [LibraryImport(LibraryName)]
    public static partial void EVP_MD_CTX_free(nint ctx);

    [LibraryImport(LibraryName)]
    public static partial int EVP_DigestInit_ex(nint ctx, nint type, nint engine);

    [LibraryImport(LibraryName)]
    public static partial int EVP_DigestUpdate(nint ctx, byte* data, nuint count);

    [LibraryImport(LibraryName)]
    public static partial int EVP_DigestFinal_ex(nint ctx, byte* digest, uint* size);

    [LibraryImport(LibraryName)]
    public static partial int EVP_MD_CTX_copy_ex(nint destination, nint source);

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
