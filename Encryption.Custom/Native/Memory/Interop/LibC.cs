using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace Encryption.Custom.Native.Memory.Interop;

/// <summary>The Linux libc calls the key memory needs. Constants are the x86-64 / arm64 (asm-generic) values.</summary>
[SupportedOSPlatform("linux")]
internal static unsafe partial class LibC
{
    private const string Library = "libc";

    public const int ProtNone = 0x0;
    public const int ProtRead = 0x1;
    public const int ProtWrite = 0x2;

    public const int MapShared = 0x01;
    public const int MapPrivate = 0x02;
    public const int MapFixed = 0x10;
    public const int MapAnonymous = 0x20;
    public const int MapNoReserve = 0x4000;

    public const int MadvDontFork = 10;
    public const int MadvDontDump = 16;
    public const int MadvWipeOnFork = 18;

    public const int OCloExec = 0x80000;

    /// <summary>The <c>memfd_secret</c> syscall number (same on every architecture since Linux 5.14).</summary>
    public const nint SysMemfdSecret = 447;

    /// <summary>What <c>mmap</c> returns on failure.</summary>
    public static readonly void* MapFailed = (void*)-1;

    [LibraryImport(Library, EntryPoint = "mmap", SetLastError = true)]
    public static partial void* Mmap(void* address, nuint length, int protection, int flags, int fd, long offset);

    [LibraryImport(Library, EntryPoint = "munmap", SetLastError = true)]
    public static partial int Munmap(void* address, nuint length);

    [LibraryImport(Library, EntryPoint = "mlock", SetLastError = true)]
    public static partial int Mlock(void* address, nuint length);

    [LibraryImport(Library, EntryPoint = "madvise", SetLastError = true)]
    public static partial int Madvise(void* address, nuint length, int advice);

    [LibraryImport(Library, EntryPoint = "ftruncate", SetLastError = true)]
    public static partial int Ftruncate(int fd, long length);

    [LibraryImport(Library, EntryPoint = "close", SetLastError = true)]
    public static partial int Close(int fd);

    /// <summary>The variadic <c>syscall(2)</c> with one integer argument (integer arguments pass as in a normal call).</summary>
    [LibraryImport(Library, EntryPoint = "syscall", SetLastError = true)]
    public static partial nint Syscall(nint number, nint argument);
}
