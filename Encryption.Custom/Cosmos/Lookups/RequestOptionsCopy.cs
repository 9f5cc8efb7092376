using System.Reflection;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Cosmos.Lookups;

/// <summary>
/// A shallow copy of the SDK's request options, every field included (the SDK's own copy is internal): one setting
/// can then change without touching the caller's instance, which concurrent requests may share, and without a list
/// of properties that an SDK upgrade could outgrow.
/// </summary>
internal static class RequestOptionsCopy
{
    private static readonly MethodInfo s_memberwiseClone =
        typeof(object).GetMethod("MemberwiseClone", BindingFlags.Instance | BindingFlags.NonPublic)!;

    /// <summary>A copy of <paramref name="options"/> of the same type, sharing its field values.</summary>
    public static T Shallow<T>(T options)
        where T : RequestOptions =>
        (T)s_memberwiseClone.Invoke(options, null)!;
}
