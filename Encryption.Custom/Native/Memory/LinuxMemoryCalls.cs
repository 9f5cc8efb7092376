using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Encryption.Custom.Native.Memory.Interop;

namespace Encryption.Custom.Native.Memory;

/// <summary>
/// The libc calls <see cref="LinuxPageAllocator"/> makes, each answering 0 or the errno it failed with; the allocator
/// decides what a refusal costs. Tests derive from it to refuse a call the way the kernel would, so that every
/// fallback path runs on any machine (docs/key-memory.md).
/// </summary>
[SupportedOSPlatform("linux")]
internal unsafe class LinuxMemoryCalls
{
    // Set once the kernel says memfd_secret cannot work at all here, so later regions skip the syscall.
    private volatile int _secretMemoryError;

    /// <summary>The real calls; one instance, so the kernel's "no secret memory here" is learnt once per process.</summary>
    public static LinuxMemoryCalls Platform { get; } = new();

    /// <summary>Reserves <paramref name="length"/> bytes of inaccessible address space (committing nothing).</summary>
    public virtual int Reserve(nuint length, out byte* address)
    {
        void* mapped = LibC.Mmap(null, length, LibC.ProtNone, LibC.MapPrivate | LibC.MapAnonymous | LibC.MapNoReserve, -1, 0);
        address = mapped == LibC.MapFailed ? null : (byte*)mapped;
        return address == null ? LastError() : 0;
    }

    /// <summary>Maps <c>memfd_secret</c> pages over part of a reservation (<c>MAP_FIXED</c>).</summary>
    public virtual int MapSecret(byte* address, nuint length)
    {
        int error = _secretMemoryError;
        if (error != 0)
        {
            return error;
        }

        int fd = (int)LibC.Syscall(LibC.SysMemfdSecret, LibC.OCloExec);
        if (fd < 0)
        {
            // ENOSYS (old kernel, or secretmem disabled), EPERM (seccomp), EINVAL: will not change while we run.
            _secretMemoryError = error = LastError();
            return error;
        }

        try
        {
            if (LibC.Ftruncate(fd, (long)length) != 0)
            {
                return LastError();
            }

            // The mapping keeps the file alive after close.
            return LibC.Mmap(address, length, LibC.ProtRead | LibC.ProtWrite, LibC.MapShared | LibC.MapFixed, fd, 0) == LibC.MapFailed
                ? LastError()
                : 0;
        }
        finally
        {
            _ = LibC.Close(fd);
        }
    }

    /// <summary>Maps private anonymous read-write pages over part of a reservation (<c>MAP_FIXED</c>).</summary>
    public virtual int MapAnonymous(byte* address, nuint length) =>
        LibC.Mmap(address, length, LibC.ProtRead | LibC.ProtWrite, LibC.MapPrivate | LibC.MapAnonymous | LibC.MapFixed, -1, 0) == LibC.MapFailed
            ? LastError()
            : 0;

    /// <summary><c>mlock</c>.</summary>
    public virtual int Lock(byte* address, nuint length) => ErrorOf(LibC.Mlock(address, length));

    /// <summary><c>madvise</c> with one of the <c>MADV_*</c> values of <see cref="LibC"/>.</summary>
    public virtual int Advise(byte* address, nuint length, int advice) => ErrorOf(LibC.Madvise(address, length, advice));

    /// <summary><c>munmap</c>: it drops the lock too, and a failure leaves nothing to recover.</summary>
    public virtual void Unmap(byte* address, nuint length) => _ = LibC.Munmap(address, length);

    // errno of a failed libc call that returns 0 on success (a failure without errno still reads as one).
    private static int ErrorOf(int result) => result == 0 ? 0 : LastError();

    private static int LastError() => Math.Max(1, Marshal.GetLastPInvokeError());
}
