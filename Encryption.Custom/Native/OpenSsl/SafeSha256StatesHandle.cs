// Native memory for the SHA-256 states of one HMAC-SHA256 key (wire-format.md §1): inner (after key ⊕ ipad),
// outer (after key ⊕ opad) and a work state, each an OpenSSL SHA256_CTX (112 bytes in libcrypto 3's public ABI),
// laid out at StateStride. The pad states are key-equivalent: the memory is zeroed before it is freed.
using System.Runtime.InteropServices;
using System.Security.Cryptography;

namespace Encryption.Custom.Native.OpenSsl;

/// <summary>Three SHA256_CTX slots in one native block, zeroed and freed on dispose or, as a safety net, on finalization.</summary>
internal sealed unsafe class SafeSha256StatesHandle : SafeHandle
{
    /// <summary>Room for one SHA256_CTX (112 bytes), rounded up to two cache lines' worth of alignment.</summary>
    public const int StateStride = 128;

    public const int StateCount = 3;

    private const int Size = StateStride * StateCount;

    public SafeSha256StatesHandle()
        : base(invalidHandleValue: 0, ownsHandle: true)
    {
    }

    public override bool IsInvalid => handle == 0;

    /// <summary>Allocates the zeroed block.</summary>
    public static SafeSha256StatesHandle Create()
    {
        var result = new SafeSha256StatesHandle();
        void* block = NativeMemory.AlignedAlloc(Size, 64);
        new Span<byte>(block, Size).Clear();
        result.SetHandle((nint)block);
        return result;
    }

    /// <summary>The address of state <paramref name="index"/> (0 inner, 1 outer, 2 work).</summary>
    public byte* State(int index) => (byte*)handle + (index * StateStride);

    protected override bool ReleaseHandle()
    {
        CryptographicOperations.ZeroMemory(new Span<byte>((void*)handle, Size));
        NativeMemory.AlignedFree((void*)handle);
        return true;
    }
}
