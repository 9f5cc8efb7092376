using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace Encryption.Custom.Native.Memory.Interop;

/// <summary>The Windows virtual memory calls the key memory needs.</summary>
[SupportedOSPlatform("windows")]
internal static unsafe partial class Kernel32
{
    private const string Library = "kernel32.dll";

    public const uint MemCommit = 0x1000;
    public const uint MemReserve = 0x2000;
    public const uint MemRelease = 0x8000;

    public const uint PageNoAccess = 0x01;
    public const uint PageReadWrite = 0x04;

    [LibraryImport(Library, EntryPoint = "VirtualAlloc", SetLastError = true)]
    public static partial void* VirtualAlloc(void* address, nuint size, uint allocationType, uint protection);

    [LibraryImport(Library, EntryPoint = "VirtualFree", SetLastError = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    public static partial bool VirtualFree(void* address, nuint size, uint freeType);

    [LibraryImport(Library, EntryPoint = "VirtualProtect", SetLastError = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    public static partial bool VirtualProtect(void* address, nuint size, uint newProtection, out uint oldProtection);

    [LibraryImport(Library, EntryPoint = "VirtualLock", SetLastError = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    public static partial bool VirtualLock(void* address, nuint size);

    [LibraryImport(Library, EntryPoint = "VirtualUnlock", SetLastError = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    public static partial bool VirtualUnlock(void* address, nuint size);
}
