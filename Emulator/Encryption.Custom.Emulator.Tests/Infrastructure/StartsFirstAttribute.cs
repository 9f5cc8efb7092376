namespace Encryption.Custom.Emulator.Tests.Infrastructure;

/// <summary>
/// Marks a test class whose tests together wait many seconds of real time (a child process killed and rerun,
/// injected faults with the SDK's retry delays, a request-unit budget, a lease handed between instances). The run
/// starts such classes before all others (<see cref="StartsFirstCollectionOrderer"/>).
/// </summary>
/// <remarks>
/// A test class is a collection, and a collection runs its tests one after the other, while the collections share
/// the run's threads. A 35-second class that happens to start 30 seconds in therefore makes the run 65 seconds long
/// however short everything else is; started first, it runs beside everything else. The endpoint suite's wall time
/// went from 53 to about 40 seconds of tests this way, and stopped depending on the run's random collection order.
/// </remarks>
[AttributeUsage(AttributeTargets.Class, AllowMultiple = false, Inherited = false)]
public sealed class StartsFirstAttribute : Attribute
{
}
