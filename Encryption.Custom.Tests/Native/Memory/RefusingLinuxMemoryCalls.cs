using System.Runtime.Versioning;
using Encryption.Custom.Native.Memory;

namespace Encryption.Custom.Tests.Native.Memory;

/// <summary>Platform refusals to simulate, so that every fallback path of the key memory runs on any machine.</summary>
[Flags]
internal enum SimulatedRefusals
{
    None = 0,

    /// <summary><c>memfd_secret</c> fails as on kernels without it (<c>ENOSYS</c>).</summary>
    SecretMemoryUnavailable = 1 << 0,

    /// <summary>Locking fails as when the memlock limit is exhausted; secret memory (always locked) fails too.</summary>
    LockRefused = 1 << 1,

    /// <summary><c>MADV_DONTDUMP</c> fails.</summary>
    DumpExclusionRefused = 1 << 2,

    /// <summary><c>MADV_WIPEONFORK</c> / <c>MADV_DONTFORK</c> fail as on old kernels.</summary>
    ForkProtectionRefused = 1 << 3,

    /// <summary>The guarded mapping itself fails: the pool falls back to the plain native heap.</summary>
    MappingUnavailable = 1 << 4,
}

/// <summary>
/// The real libc calls, except those <see cref="SimulatedRefusals"/> names, which fail with the errno the kernel
/// gives in that situation; the allocator's real fallback code then runs.
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed unsafe class RefusingLinuxMemoryCalls(SimulatedRefusals refusals) : LinuxMemoryCalls
{
    private const int EAGAIN = 11;
    private const int ENOMEM = 12;
    private const int EINVAL = 22;
    private const int ENOSYS = 38;

    private const int MadvDontFork = 10;
    private const int MadvDontDump = 16;
    private const int MadvWipeOnFork = 18;

    public static ProtectedMemoryPool Pool(SimulatedRefusals refusals) =>
        new(new LinuxPageAllocator(new RefusingLinuxMemoryCalls(refusals)));

    public override int Reserve(nuint length, out byte* address)
    {
        if (Has(SimulatedRefusals.MappingUnavailable))
        {
            address = null;
            return ENOMEM;
        }

        return base.Reserve(length, out address);
    }

    public override int MapSecret(byte* address, nuint length) =>
        Has(SimulatedRefusals.SecretMemoryUnavailable) ? ENOSYS

        // The kernel charges secret pages to RLIMIT_MEMLOCK, so a refused lock refuses them too.
        : Has(SimulatedRefusals.LockRefused) ? EAGAIN
        : base.MapSecret(address, length);

    public override int Lock(byte* address, nuint length) =>
        Has(SimulatedRefusals.LockRefused) ? ENOMEM : base.Lock(address, length);

    public override int Advise(byte* address, nuint length, int advice) => advice switch
    {
        MadvDontDump when Has(SimulatedRefusals.DumpExclusionRefused) => EINVAL,
        MadvDontFork or MadvWipeOnFork when Has(SimulatedRefusals.ForkProtectionRefused) => EINVAL,
        _ => base.Advise(address, length, advice),
    };

    private bool Has(SimulatedRefusals refusal) => (refusals & refusal) != 0;
}
