namespace Encryption.Custom.Performance.Tests.Json;

/// <summary>
/// Marks a benchmark whose work does not depend on the <c>Processor</c> parameter (a baseline without encryption, or
/// the crypto-only work): it runs once per case, under the stream processor's value, instead of once per processor.
/// </summary>
[AttributeUsage(AttributeTargets.Method, AllowMultiple = false)]
public class ProcessorIndependentAttribute : Attribute;
