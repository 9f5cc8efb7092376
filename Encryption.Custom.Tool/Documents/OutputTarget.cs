using System.Runtime.InteropServices;

namespace Encryption.Custom.Tool.Documents;

/// <summary>What an <c>--out</c> path names, which decides how the result is written (docs/tool.md).</summary>
internal enum OutputTargetKind
{
    /// <summary>Nothing yet: created through a temporary file and a rename.</summary>
    Missing,

    /// <summary>A regular file: replaced through a temporary file and a rename.</summary>
    RegularFile,

    /// <summary>A character device or a FIFO: written through, never replaced.</summary>
    WriteThrough,

    /// <summary>A symbolic link (also a dangling one): refused, never replaced or followed.</summary>
    SymbolicLink,

    /// <summary>A folder, block device or socket: refused.</summary>
    Unsupported,
}

/// <summary>Classifies an output path without opening it (opening a FIFO would block, and must not happen twice).</summary>
internal static partial class OutputTarget
{
    // The file type bits of a mode as the runtime's native shim reports them (the same values on every Unix).
    private const int TypeMask = 0xF000;
    private const int Fifo = 0x1000;
    private const int CharacterDevice = 0x2000;
    private const int Directory = 0x4000;
    private const int RegularFile = 0x8000;
    private const int SymbolicLink = 0xA000;

    // Larger than the runtime's FileStatus (about 130 bytes), so that a future, longer one cannot overrun it.
    private const int StatusBufferLength = 512;

    /// <summary>The kind of <paramref name="fullPath"/>, the link itself (not its target) for a symbolic link.</summary>
    public static OutputTargetKind Classify(string fullPath)
    {
        if (OperatingSystem.IsWindows())
        {
            return ClassifyPortably(fullPath);
        }

        // .NET exposes no file type beyond "folder" and "link", so ask lstat(2) through the runtime's own shim
        // (libSystem.Native, which FileSystemInfo uses on every Unix), reading only the mode's type bits.
        Span<byte> status = stackalloc byte[StatusBufferLength];
        if (LStat(fullPath, ref MemoryMarshal.GetReference(status)) != 0)
        {
            // Absent (or unreachable: creating the temporary file then reports the real error).
            return OutputTargetKind.Missing;
        }

        int mode = MemoryMarshal.Read<int>(status[sizeof(int)..]);
        return (mode & TypeMask) switch
        {
            RegularFile => OutputTargetKind.RegularFile,
            CharacterDevice or Fifo => OutputTargetKind.WriteThrough,
            SymbolicLink => OutputTargetKind.SymbolicLink,
            Directory => OutputTargetKind.Unsupported,
            _ => OutputTargetKind.Unsupported,
        };
    }

    private static OutputTargetKind ClassifyPortably(string fullPath)
    {
        var info = new FileInfo(fullPath);
        if (info.LinkTarget is not null)
        {
            return OutputTargetKind.SymbolicLink;
        }

        if (info.Exists)
        {
            return OutputTargetKind.RegularFile;
        }

        return System.IO.Directory.Exists(fullPath) ? OutputTargetKind.Unsupported : OutputTargetKind.Missing;
    }

    [LibraryImport("libSystem.Native", EntryPoint = "SystemNative_LStat", StringMarshalling = StringMarshalling.Utf8)]
    private static partial int LStat(string path, ref byte status);
}
