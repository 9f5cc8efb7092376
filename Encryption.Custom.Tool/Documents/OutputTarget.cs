using Mono.Unix;

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
internal static class OutputTarget
{
    /// <summary>The kind of <paramref name="fullPath"/>, the link itself (not its target) for a symbolic link.</summary>
    public static OutputTargetKind Classify(string fullPath)
    {
        if (OperatingSystem.IsWindows())
        {
            return ClassifyPortably(fullPath);
        }

        // .NET exposes no file type beyond "folder" and "link", so ask lstat(2) through Mono.Unix (a maintained
        // binding with its own native library), never through the runtime's private shim and its struct layout.
        UnixFileSystemInfo info;
        try
        {
            info = new UnixSymbolicLinkInfo(fullPath);
            if (!info.Exists)
            {
                return OutputTargetKind.Missing;
            }
        }
        catch (UnixIOException)
        {
            // Unreachable (a component is not a folder, no permission): creating the temporary file then reports the real error.
            return OutputTargetKind.Missing;
        }

        return info.FileType switch
        {
            FileTypes.RegularFile => OutputTargetKind.RegularFile,
            FileTypes.CharacterDevice or FileTypes.Fifo => OutputTargetKind.WriteThrough,
            FileTypes.SymbolicLink => OutputTargetKind.SymbolicLink,
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

        return Directory.Exists(fullPath) ? OutputTargetKind.Unsupported : OutputTargetKind.Missing;
    }
}
